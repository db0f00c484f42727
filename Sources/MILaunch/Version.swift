/// The release `miadmin --version` prints. Raise it with every release (docs/user-guide.md).
public enum MIAdminVersion {
    public static let current = "1.1.0"
}
