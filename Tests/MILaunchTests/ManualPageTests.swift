import Foundation
import Testing
@testable import MILaunch

/// The man page's FILES name the installation's own config, store and group: a prefix's, a
/// PostgreSQL store's URL, the group Scripts/install was given.
@Suite("Manual page")
struct ManualPageTests {
    /// The FILES section and what follows it.
    func files(_ files: ManualPage.Files) -> String {
        let page = ManualPage.render(files: files)
        return String(page[page.range(of: ".SH FILES")!.lowerBound...])
    }

    @Test func aPrefixAndGroupAreNamed() {
        let text = files(.init(config: "/opt/mi/etc/miadmin/config.json", store: "/opt/mi/var/lib/miadmin/store.sqlite",
                               storeIsFile: true, group: "fieldops"))
        #expect(text.contains(".I /opt/mi/etc/miadmin/config.json\n"), "\(text)")
        #expect(text.contains(".I /opt/mi/var/lib/miadmin/store.sqlite\nThe shared store, readable and writable by the fieldops group only."),
                "\(text)")
        #expect(!text.contains("miadmin group"), "\(text)")
    }

    @Test func aPostgresStoreIsNamedByItsURL() {
        let text = files(.init(config: "/etc/miadmin/config.json", store: "postgresql://db.example:5432/mi",
                               storeIsFile: false, group: "miadmin"))
        #expect(text.contains(".I postgresql://db.example:5432/mi\nThe shared store (PostgreSQL)"), "\(text)")
        #expect(!text.contains("store.sqlite"), "\(text)")
    }

    @Test func beforeTheConfigIsWrittenThePageSaysWhereTheStoreComesFrom() {
        let text = files(.init(config: "/etc/miadmin/config.json", store: nil, storeIsFile: true, group: nil))
        #expect(text.contains("the store the config names (store.path"), "\(text)")
        #expect(text.contains("the store's group (Scripts/install \\-\\-group)"), "\(text)")
    }
}
