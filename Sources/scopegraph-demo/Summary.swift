import ScopeGraph

/// Checks what the resolve produced and describes it, one line per fact. Every "yes" below is
/// computed from the instances, not assumed.
/// - Parameters:
///   - app: The entry point resolved from the shell.
///   - order: The order `app.run()` placed.
///   - containers: The app's containers, to resolve again and compare.
/// - Returns: The summary's lines.
/// - Throws: `ResolutionError` if a second resolve fails.
func summarize(_ app: App, order: Order, in containers: AppContainers) throws -> [String] {
    let again = try containers.shell.resolve(App.self)
    let telemetry = try containers.core.resolve(Telemetry.self)
    let shellSession = try containers.shell.resolve(Session.self)
    let store = try containers.checkout.resolve(OrderStore.self)
    let sessions = [app.session, app.checkout.session]

    return [
        "Resolved App from 'shell':",
        "  Catalog ⇄ Cart cycle closed by onResolved: \(yes(app.catalog.cart === app.cart && app.cart.catalog === app.catalog))",
        "  Checkout uses the same Cart as App:      \(yes(app.checkout.cart === app.cart))",
        "  Session (perContainer): \(sessions.map { "'\($0.containerName)'" }.joined(separator: ", ")); "
            + "distinct: \(yes(sessions[0] !== sessions[1]))",
        "  A second resolve of App: new App \(yes(again !== app)), same Catalog/Cart/Checkout "
            + "\(yes(again.catalog === app.catalog && again.cart === app.cart && again.checkout === app.checkout)), "
            + "same shell Session \(yes(shellSession === app.session))",
        "  Telemetry (eagerSingleton): \(telemetry.events.count) events: \(telemetry.events.joined(separator: ", "))",
        "  OrderStore (eagerSingleton, async factory) opened by bootstrapAsync(), used by Checkout: "
            + "\(yes(app.checkout.store === store)); holds the new order: \(yes(store.latest?.number == order.number))",
        "Order #\(order.number): \(order.itemCount) items, \(formatCents(order.total)) \(order.currency)",
    ]
}

private func yes(_ condition: Bool) -> String { condition ? "yes" : "NO" }
