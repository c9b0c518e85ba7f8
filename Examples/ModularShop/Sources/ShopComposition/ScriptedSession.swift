import ScopeGraph
import ShopInterfaces

extension ShopContainers {
    /// Runs a short shopping session and describes it, one line per step: list the catalog,
    /// fill the cart (one product the catalog does not sell), list it again with the picked
    /// products marked, check out in a first session, try again in a second session with the
    /// now empty cart, and count each session's orders.
    ///
    /// Each service is resolved from its feature's container, and checkout from a session
    /// container, as an app's screens would.
    /// - Parameter onLine: Called with each line of the transcript as soon as it is written, so
    ///   that a caller can print it between the services' log lines.
    /// - Returns: The transcript.
    /// - Throws: A `ResolutionError` when the tree cannot build a service, or a `ShopError`
    ///   the script did not expect.
    public func runScriptedSession(onLine: (String) -> Void = { _ in }) throws -> [String] {
        var transcript: [String] = []
        func write(_ lines: [String]) {
            transcript += lines
            lines.forEach(onLine)
        }
        func write(_ line: String) { write([line]) }

        let catalog = try self.catalog.resolve((any ProductCatalog).self)
        let cart = try self.cart.resolve((any ShoppingCart).self)
        write(["catalog:"] + catalog.listing().map { "  " + $0 })

        for name in ["Espresso beans", "Ceramic cup", "Unicorn"] {
            do {
                try cart.add(name)
                write("add \(name): ok")
            } catch let error as ShopError {
                write("add \(name): \(error)")
            }
        }
        write(["catalog, after adding:"] + catalog.listing().map { "  " + $0 })

        let sessions = [makeSession(name: "session-1"), makeSession(name: "session-2")]
        for session in sessions {
            do {
                let order = try session.resolve((any CheckoutService).self).placeOrder()
                write("\(session.name): \(describe(order))")
            } catch let error as ShopError {
                write("\(session.name): checkout refused, \(error)")
            }
        }
        for session in sessions {
            let state = try session.resolve((any CheckoutSession).self)
            write("\(state.name) placed \(state.orders.count) order(s)")
        }
        return transcript
    }

    /// One line about an order, with amounts in the shop's currency.
    private func describe(_ order: Order) -> String {
        "order #\(order.number), \(order.items.count) items, subtotal \(config.format(order.subtotal))"
            + " + tax \(config.format(order.tax)) = \(config.format(order.total))"
    }
}
