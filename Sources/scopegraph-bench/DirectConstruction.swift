// Direct construction: the hand-written code a container replaces. This is the floor each
// scenario is compared with.

/// A hand-written composition root: it owns the singletons and builds everything else with
/// initializers.
final class DirectComposition: Sendable {
    private let appSettings: any Settings = AppSettings()

    /// The cached singleton. Not inlined, so a loop reading it cannot hoist the read away.
    @inline(never)
    func settings() -> any Settings { appSettings }

    func transient() -> any Transient { TransientService() }

    func assembly() -> any Assembly {
        AssemblyService(first: FirstPartService(), second: SecondPartService(), third: ThirdPartService())
    }

    func graph() -> GraphRoot {
        let shared = GraphShared()
        return GraphRoot(
            left: GraphLeft(leaf: GraphLeafA(shared: shared), shared: shared),
            middle: GraphMiddle(leaf: GraphLeafB(), shared: shared),
            right: GraphRight(leaf: GraphLeafC(leaf: GraphLeafD()), shared: shared),
            extra: GraphLeafE())
    }

    func numbered() -> any Numbered { NumberedService() }

    func requestHandler() -> any RequestHandling {
        RequestHandler(settings: settings(), helper: RequestHelper())
    }
}
