import Foundation

extension AppConfig {
    /// `audit`: copying each committed audit row to the system logger (docs/configuration.md).
    public struct Audit: Sendable, Equatable {
        /// `audit.syslog`: on (the relay exists only then).
        public var syslog: Bool
        /// `audit.facility` (default authpriv: who changed what is for the people who read the
        /// authorisation log, not for every user of the host).
        public var facility: SyslogFacility
        /// `audit.socket`: a datagram socket other than the default (`/dev/log`, or journald's
        /// native socket when it exists).
        public var socket: String?
        /// `audit.format`: `rfc5424` or `journal`; nil: `journal` on journald's socket, else `rfc5424`.
        public var format: SystemLogRelay.Format?

        public init(syslog: Bool, facility: SyslogFacility = .authpriv, socket: String? = nil, format: SystemLogRelay.Format? = nil) {
            self.syslog = syslog
            self.facility = facility
            self.socket = socket
            self.format = format
        }
    }

    static func audit(reader: inout ConfigReader, file: String) throws -> Audit? {
        let syslog = try reader.bool("audit.syslog")
        let facilityName = try reader.choice("audit.facility", SyslogFacility.allCases.map(\.rawValue))
        let socket = try reader.string("audit.socket").flatMap { $0.isEmpty ? nil : $0 }
        let format = try reader.choice("audit.format", SystemLogRelay.Format.allCases.map(\.rawValue)).flatMap(SystemLogRelay.Format.init)
        guard syslog == true else {
            if facilityName != nil || socket != nil || format != nil {
                throw ConfigError(file: file, message: "audit.facility, audit.socket and audit.format are for audit.syslog, which is not true")
            }
            return nil
        }
        if let socket, !socket.hasPrefix("/") {
            throw ConfigError(file: file, message: "key audit.socket must be an absolute path to a datagram socket, such as /dev/log")
        }
        return Audit(syslog: true, facility: facilityName.flatMap(SyslogFacility.init) ?? .authpriv, socket: socket, format: format)
    }
}
