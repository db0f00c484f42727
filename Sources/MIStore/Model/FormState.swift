/// Where a form is in its life: being filled in, waiting for a foreman, or sent to the server.
///
/// On a device, `incomplete` forms live in `Documents/<uid>/`, `completed` ones in
/// `Documents/Completed MIs/<uid>/`; `submitted` forms have been uploaded and have no folder.
public enum FormState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case incomplete
    case completed
    case submitted

    public var description: String { rawValue }
}
