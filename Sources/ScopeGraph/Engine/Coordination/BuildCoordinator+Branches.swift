/// The coordinator's part in branches (`ResolutionContext+Branches.swift`): a request from a
/// child task of an async factory joins the group of the factory's resolve while the factory
/// runs, and gives up what it never built when it ends.
extension BuildCoordinator {
    /// Makes `branch` a member of the group of the resolve at `point`, if the factory there
    /// still runs; false otherwise.
    func open(_ branch: ResolutionContext, at point: ResolutionContext.BranchPoint) -> Bool {
        withLock { _ in
            guard point.isOpen else { return false }
            let parent = point.context
            joinOwnGroup(parent)
            branch.usedCoordinator = true
            branch.group = parent.group
            parent.group.members.append(branch)
            parent.branches.append(branch)
            // Cancelling the resolve's caller detaches the branch with the builds it serves,
            // as a handed-off build is (`detachHandedOffBuilds`): others may wait for them.
            branch.handedOffBy = parent
            // The resolve now ends with its group's finish (`runTopLevelAsync`).
            parent.hasBranches.store(true, ordering: .releasing)
            return true
        }
    }

    /// Closes `point`: its factory returned or threw.
    func close(_ point: ResolutionContext.BranchPoint) {
        withLock { _ in point.isOpen = false }
    }

    /// Ends a branch's request: a slot it took and never built (it failed or was cancelled
    /// in between) is given up, so that others build it.
    func end(_ branch: ResolutionContext) {
        withLock { releases in
            for slot in branch.ownedSlots where slot.build.builder === branch && slot.build.built == nil {
                slot.build = .idle
                wakeReaders(of: slot)
                releases.append(slot)
            }
            branch.ownedSlots.removeAll { $0.build.builder !== branch }
            wakeAll()
        }
    }
}
