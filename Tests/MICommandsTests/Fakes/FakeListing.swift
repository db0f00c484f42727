import Foundation
import MICommands
@testable import MIStore

/// Reading: the forms, counts and workloads of ``FakeStore/forms``, and notices; any other read ends the command with ``FakeStore/Reached``.
final class FakeListing: StoreListing {
    let store: FakeStore
    init(_ store: FakeStore) { self.store = store }

    func forEachForm(_ filter: FormFilter, _ body: (FormSummary) throws -> Void) throws {
        store.calls.append("forEachForm")
        store.lastFilter = filter
        for form in store.forms where filter.owner.map({ $0 == form.owner }) ?? true {
            if let state = filter.state, state != form.state { continue }
            try body(form)
        }
    }

    func notices(for uid: String, unreadOnly: Bool) throws -> [Notice] {
        store.calls.append("notices \(uid)")
        return store.storedNotices.filter { $0.uid == uid && (!unreadOnly || $0.readAt == nil) }
    }

    func countForms(_ filter: FormFilter) throws -> Int {
        throw store.reached("countForms")
    }

    func countForms(by fields: [FormField], _ filter: FormFilter) throws -> [FormCount] {
        store.calls.append("countForms by \(fields.map(\.rawValue).joined(separator: ","))")
        store.lastFilter = filter
        var counts: [FormCount] = []
        for form in store.forms where filter.owner.map({ $0 == form.owner }) ?? true {
            if let state = filter.state, state != form.state { continue }
            let values = fields.map { field in
                switch field {
                case .owner: form.owner
                case .state: form.state.rawValue
                case .template: form.template
                }
            }
            if let index = counts.firstIndex(where: { $0.values == values }) {
                counts[index].count += 1
            } else {
                counts.append(FormCount(values: values, count: 1))
            }
        }
        return counts.sorted(by: FormCount.mostFirst)
    }

    func workload(_ filter: FormFilter, policies: OwnerPolicies) throws -> [OwnerWorkload] {
        store.calls.append("workload")
        store.lastFilter = filter
        let owners = Array(Set(store.forms.map(\.owner))).sorted().filter { filter.owner.map($0.elementsEqual) ?? true }
        return owners.map { owner in
            let mine = store.forms.filter { $0.owner == owner }
            let open = mine.filter { $0.state == .incomplete }
            return OwnerWorkload(owner: owner, incomplete: open.count, completed: mine.filter { $0.state == .completed }.count,
                                 oldestIncomplete: open.map(\.created.date).min(),
                                 nextExpiry: open.compactMap { policies.expires($0) }.min())
        }
    }

    func form(_ ref: FormReference, owner: String?) throws -> Form {
        throw store.reached("form")
    }

    func review(_ ref: FormReference, owner: String?) throws -> FormReview {
        throw store.reached("review")
    }

    func mediaData(_ ref: FormReference, fileName: String) throws -> Data {
        throw store.reached("mediaData")
    }

    func forEachMediaFile(of ref: FormReference, fileName: String?, owner: String?, _ body: (MediaSource, MediaFile, Data) throws -> Void) throws -> MediaSource {
        throw store.reached("forEachMediaFile")
    }

    func formReferenceSuggestions(prefix: String, owner: String?, scope: FormStore.SuggestionScope, limit: Int) throws -> [String] {
        throw store.reached("formReferenceSuggestions")
    }

    func whereabouts(_ query: FindTarget, limit: Int) throws -> [FormWhereabouts] {
        throw store.reached("whereabouts")
    }

    func forEachTrashedForm(owner: String?, _ body: (TrashedForm) throws -> Void) throws {
        throw store.reached("forEachTrashedForm")
    }

    func forEachAuditEntry(_ filter: AuditFilter, _ body: (AuditEntry) throws -> Void) throws {
        throw store.reached("forEachAuditEntry")
    }
}
