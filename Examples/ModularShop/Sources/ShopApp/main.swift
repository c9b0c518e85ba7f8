// The shop's executable: compose the container tree, refuse to start if it does not validate,
// then run the scripted session. Everything else is in ShopComposition, so the tests can use it.

import Foundation
import ScopeGraph
import ShopComposition

let shop = ShopContainers(logger: ShopLog(echoes: true))
print("== the container tree")
print(shop.core)

// validate() builds every registration once in a sandbox (hence the log lines it prints) and
// keeps none of what it built: the session below builds the catalog and the cart afresh.
print("\n== validate()")
let report = shop.validate()
guard report.isValid else {
    FileHandle.standardError.write(Data("ShopApp: the container tree is not valid\n\(report)\n".utf8))
    exit(1)
}
print("valid, \(report.issues.count) issue(s)")

print("\n== a scripted session")
do {
    _ = try shop.runScriptedSession { print($0) }
} catch {
    FileHandle.standardError.write(Data("ShopApp: the session failed\n\(error)\n".utf8))
    exit(1)
}
