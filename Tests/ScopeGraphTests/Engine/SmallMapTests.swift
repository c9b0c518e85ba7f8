import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// `SmallMap` (the `graph` instances of a resolve)
/// against a reference model, through the arrays and the index.
@Suite struct SmallMapTests {
    @Test(arguments: [1, 2, 3, 17, 40])
    func randomOperationsAgreeWithAModel(keySpace: Int) {
        var generator = Reliability.SplitMix64(seed: UInt64(keySpace))
        let map = SmallMap<Int, Int>()
        var model: [(key: Int, value: Int)] = []
        for step in 0..<4_000 {
            let key = Int(generator.next() % UInt64(keySpace))
            switch generator.next() % 10 {
            case 0..<5:
                map.set(step, for: key)
                if let at = model.firstIndex(where: { $0.key == key }) {
                    model[at].value = step
                } else {
                    model.append((key, step))
                }
            case 5..<8:
                let removed = map.remove(key)
                let at = model.firstIndex(where: { $0.key == key })
                #expect(removed == at.map { model[$0].value })
                if let at { model.remove(at: at) }
            case 8:
                if generator.next() % 8 == 0 {
                    map.removeAll()
                    model.removeAll()
                }
            default:
                break
            }
            #expect(map[key] == model.first(where: { $0.key == key })?.value)
            #expect(map.isEmpty == model.isEmpty)
            if let position = map.position(of: key) { #expect(map.value(at: position) == map[key]) }
        }
        #expect(map.allValues == model.map(\.value))
        for probe in 0..<keySpace { #expect(map[probe] == model.first(where: { $0.key == probe })?.value) }
    }
}
