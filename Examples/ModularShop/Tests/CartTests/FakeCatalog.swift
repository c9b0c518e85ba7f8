import ShopInterfaces

/// A catalog with a fixed list of products, standing in for the Catalog feature.
final class FakeCatalog: ProductCatalog {
    let products: [Product]

    /// Creates a catalog selling `products`.
    init(products: [Product]) { self.products = products }

    func product(named name: String) -> Product? { products.first { $0.name == name } }

    func listing() -> [String] { products.map(\.name) }
}
