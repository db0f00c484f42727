import Foundation
import MICommands
@testable import MIStore

/// Deliveries and reminders: every call ends the command with ``FakeStore/Reached``.
final class FakeOutbox: StoreOutbox {
    let store: FakeStore
    init(_ store: FakeStore) { self.store = store }

    func dueDeliveries(ignoringBackoff: Bool, limit: Int) throws -> [Delivery] { throw store.reached("dueDeliveries") }

    func delivery(_ id: Int64) throws -> Delivery { throw store.reached("delivery") }

    func forEachDelivery(_ filter: DeliveryFilter, _ body: (Delivery) throws -> Void) throws { throw store.reached("forEachDelivery") }

    func recordDeliveryTry(_ id: Int64, outcome: DeliveryOutcome) throws -> Delivery { throw store.reached("recordDeliveryTry") }

    func retryDeliveries(_ id: Int64?, actor: String, note: String?) throws -> [Delivery] { throw store.reached("retryDeliveries") }
    func dismissDelivery(_ id: Int64, actor: String, note: String) throws -> Delivery { throw store.reached("dismissDelivery") }

    func deliveryReview(_ delivery: Delivery) throws -> Result<FormReview, StoreError> { throw store.reached("deliveryReview") }

    func withMediaReader<T>(formId: Int64, _ body: (MediaReader) throws -> T) throws -> T { throw store.reached("withMediaReader") }

    func sentReminders() throws -> Set<ReminderKey> { throw store.reached("sentReminders") }

    func recordSentReminders(_ keys: [ReminderKey], uid: String) throws { throw store.reached("recordSentReminders") }
}
