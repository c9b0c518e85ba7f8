import Testing
import Foundation
@testable import ScopeGraph

final class A: @unchecked Sendable { let b: B; init(b: B) { self.b = b } }
final class B: @unchecked Sendable { var a: A?; init() {} }
protocol P: Sendable {}
final class PImpl: P, @unchecked Sendable {}

@Suite struct SmokeTests {
    @Test func basics() throws {
        let c = Container(name: "root")
        c.register(B.self, lifetime: .singleton) { _ in B() }.onResolved { r, b in b.a = try r.resolve() }
        c.register(A.self, lifetime: .singleton) { r in A(b: try r.resolve()) }
        let a = try c.resolve(A.self)
        #expect(a.b.a === a)
        let child = c.makeChild(name: "child")
        #expect(try child.resolve(A.self) === a)
        c.register(PImpl.self) { _ in PImpl() }.implements(P.self)
        let p: P = try c.resolve()
        #expect(p is PImpl)
        c.register(String.self) { (_, x: Int, y: String) in "\(x)-\(y)" }
        #expect(try c.resolve(String.self, tag: nil, arguments: 1, "z") == "1-z")
        let o: A? = try c.resolve()
        #expect(o === a)
    }

    @Test func cycle() throws {
        let c = Container(name: "root")
        c.register(A.self) { r in A(b: try r.resolve()) }
        c.register(B.self) { r in _ = try r.resolve(A.self); return B() }
        do { _ = try c.resolve(A.self); Issue.record("no throw") } catch let e as ResolutionError {
            #expect(e.path.map(\.description) == ["A", "B", "A"])
            print(e)
        }
        do { _ = try c.resolve(Int.self, tag: "x") } catch { print(error) }
    }
}
