/// References to release once a lock is released: a last reference's deinit may resolve,
/// which must not happen under the coordinator's lock.
///
/// The first four are kept inline, so that the usual transition (a published slot, a retired
/// group, a replaced box) allocates nothing; more go to an array.
struct DeferredReleases {
    private var first: AnyObject?
    private var second: AnyObject?
    private var third: AnyObject?
    private var fourth: AnyObject?
    private var more: [AnyObject] = []

    mutating func append(_ object: AnyObject) {
        if first == nil {
            first = object
        } else if second == nil {
            second = object
        } else if third == nil {
            third = object
        } else if fourth == nil {
            fourth = object
        } else {
            more.append(object)
        }
    }

    mutating func append<Objects: Sequence>(contentsOf objects: Objects) where Objects.Element: AnyObject {
        for object in objects { append(object) }
    }

    /// Releases what it holds (call with no lock held).
    mutating func releaseAll() {
        first = nil
        second = nil
        third = nil
        fourth = nil
        if !more.isEmpty { more = [] }
    }
}
