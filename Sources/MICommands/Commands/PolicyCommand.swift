import ArgumentParser
import Foundation
import MIDirectory
import MIStore

/// `policy`: the expiry and notification policy in force, and `policy set` to change it for
/// every console sharing the store.
public struct PolicyCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Show or set the expiry and notification policy.",
        discussion: """
            Examples:
              policy
              policy set expiry-days 10
              policy set notify-days 1,2,5
              policy set retention-days 60
              policy set expiry-from created
              policy set --team 'Kolonne Nord' expiry-days 14
              policy show --team 'Kolonne Nord'
            """,
        subcommands: [PolicyShowCommand.self, PolicySetCommand.self],
        defaultSubcommand: PolicyShowCommand.self)
    public static let roles: Set<Role> = [.foreman, .support]

    public init() {}

    /// Never run: the parser always picks a subcommand (`show` by default).
    public func run(in session: Session, output: OutputSink) throws {
        try PolicyShowCommand().run(in: session, output: output)
    }
}

/// `policy show`: each setting's value and where it comes from.
public struct PolicyShowCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the policy in force and where each value comes from.",
        discussion: """
            A value set with 'policy set' is kept in the shared store and wins over the config \
            file (policy.* keys) for every console. Where the site keeps crews, each crew \
            override you may see ('policy set --team') follows as a row with source 'team NAME'; \
            with --team NAME, the policy in force for that crew and where each value comes from.
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Option(name: .customLong("team"), help: ArgumentHelp("Show the policy in force for this crew.", valueName: "team"))
    public var team: String?

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let effective = try session.policy()
        for problem in effective.policy.problems {
            // Possible when the config file changed under values stored with `policy set`.
            output.warning("the policy in force is inconsistent: \(problem)")
        }
        let crew = try team.map { try session.visibleCrew($0) }
        let overrides = try Self.visibleOverrides(in: session)
        output.beginRows([Column("setting"), Column("value"), Column("source"), Column("setBy"), Column("setAt")])
        if let crew {
            let override = overrides.first { $0.crew == crew.name }
            let policy = override?.applied(to: effective.policy) ?? effective.policy
            for problem in policy.problems where override != nil {
                output.warning("the policy in force for \(crew.name) is inconsistent: \(problem)")
            }
            for setting in PolicySetting.allCases {
                if let value = override?.values[setting] {
                    Self.crewRow(setting, crew: crew.name, value: value, output: output)
                } else {
                    Self.siteRow(setting, effective: effective, output: output)
                }
            }
        } else {
            for setting in PolicySetting.allCases { Self.siteRow(setting, effective: effective, output: output) }
            for override in overrides {
                for setting in PolicySetting.crewSettings {
                    guard let value = override.values[setting] else { continue }
                    Self.crewRow(setting, crew: override.crew, value: value, output: output)
                }
            }
        }
        output.endRows()
    }

    private static func siteRow(_ setting: PolicySetting, effective: EffectivePolicy, output: OutputSink) {
        let value = Value.string(setting.text(in: effective.policy))
        switch effective.source(of: setting) {
        case .config:
            output.row([.string(setting.rawValue), value, .string("config"), .null, .null])
        case .store(let setBy, let setAt):
            output.row([.string(setting.rawValue), value, .string("store"), .string(setBy), .time(setAt)])
        }
    }

    private static func crewRow(_ setting: PolicySetting, crew: String, value: CrewPolicyValue, output: OutputSink) {
        output.row([.string(setting.rawValue), .string(value.text), .string("team \(crew)"), .string(value.setBy), .time(value.setAt)])
    }

    /// The crew overrides the user may see: every crew's for support and site leads, the crews
    /// he leads for a foreman; none where the site keeps no crews.
    static func visibleOverrides(in session: Session) throws -> [CrewPolicy] {
        guard session.directory.crewSettings != nil else { return [] }
        let reach = try session.crewReach()
        let overrides = try session.store().policy.crewPolicies()
        if reach.isEveryCrew { return overrides }
        let led = Set(reach.crews.map(\.name))
        return overrides.filter { led.contains($0.crew) }
    }
}

extension PolicySetting: ExpressibleByArgument {}

/// `policy set SETTING VALUE`: stores a policy value for every console; audited.
public struct PolicySetCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a policy value in the shared store.",
        discussion: """
            expiry-days and retention-days take a whole number of days from 1 to 3650. notify-days \
            takes a comma-separated list of days after creation (or 'none'): distinct, each 1 to \
            3650 and before the expiry day (a reminder on or after it would never fire), at most \
            64 (the device's limit of pending notifications). expiry-from is 'assigned' (a move \
            restarts the moved form's expiry clock, the default) or 'created' (expiry counts from \
            creation whatever moves happen; restore and reopen restart the clock either way). A \
            value that breaks a rule is refused with the reason; the value already in force \
            changes nothing and is not audited.

            Examples:
              policy set expiry-days 10
              policy set notify-days 1,2,5 --note 'reminders on day 5 too'
              policy set expiry-from created
              policy set --team 'Kolonne Nord' expiry-days 14
              policy set --team 'Kolonne Nord' notify-days site

            With --team NAME (where the site keeps crews) the value applies to the forms of that \
            crew's members only, in place of the site's (any setting), for a crew you lead (a \
            site lead: any crew). The crew's resulting policy must pass the same rules. The value \
            'site' removes the crew's override, so the site's value holds again. A member of \
            several crews with overrides gets the crew with the longest expiry-days (and that \
            crew's other values); on a tie the crew first by name.

            Where the site keeps crews, a value without --team applies to every crew's forms, so \
            only site leads (teams.allTeamsGroup) set it; a crew's foreman sets his crews' values \
            with --team.
            """)
    public static let roles: Set<Role> = [.foreman]

    @Argument(help: ArgumentHelp("expiry-days, notify-days, retention-days or expiry-from.", valueName: "setting"))
    public var setting: PolicySetting
    /// An array only so that a negative number (`-3`) reaches the policy check, which says why
    /// it is refused, instead of being taken for an unknown option.
    @Argument(parsing: .allUnrecognized,
              help: ArgumentHelp("The new value: days, for notify-days a list like 1,2,5, for expiry-from "
                                 + "created or assigned.", valueName: "value"))
    public var values: [String] = []
    @Option(name: .customLong("team"), help: ArgumentHelp("Set the value for this crew only ('site' removes it).",
                                                           valueName: "team"))
    public var team: String?
    @OptionGroup public var note: NoteOption
    @OptionGroup public var dryRun: DryRunOption

    public init() {}

    public func validate() throws {
        guard values.count == 1 else {
            throw ValidationError(values.isEmpty ? "Missing expected argument '<value>'"
                                  : "give one value (for notify-days a comma-separated list like 1,2,5), not \(values.count)")
        }
    }

    var value: String { values[0] }

    public func run(in session: Session, output: OutputSink) throws {
        if let team { return try runForCrew(team, in: session, output: output) }
        try Self.requireSiteLead(in: session)
        let change: PolicyChange
        do {
            change = try session.changing(dryRun: dryRun.dryRun, output: output) {
                try session.store().policy.setPolicy(setting, to: value, defaults: session.config.policy.expiryPolicy,
                                              actor: session.user.uid, note: note.note)
            }
        } catch let error as StoreError where error.kind == .invalidInput {
            throw CommandError.failed("refused: \(error.message)")
        }
        guard change.changed else {
            output.message("\(setting) is \(change.after) already; nothing was changed")
            return
        }
        output.record([Column("setting"), Column("before"), Column("after"), Column("source")],
                      [.string(setting.rawValue), .string(change.before), .string(change.after), .string("store")])
    }

    /// Where the site keeps crews, a site-wide value decides when every crew's forms expire and
    /// are purged: only those who reach every crew (site leads, `teams.allTeamsGroup`) set it. A
    /// crew's foreman sets his crews' own values with --team.
    static func requireSiteLead(in session: Session) throws {
        let reach = try session.crewReach()
        guard reach.kind == .crews else { return }
        let own = reach.crews.first.map { " (as in: policy set --team '\($0.name)' ...)" } ?? ""
        throw CommandError.permissionDenied("a site-wide policy value applies to every crew's forms, so only site leads "
                                            + "(teams.allTeamsGroup) set it; set your crews' own value with --team\(own)")
    }

    private func runForCrew(_ name: String, in session: Session, output: OutputSink) throws {
        guard PolicySetting.crewSettings.contains(setting) else {
            throw CommandError.failed(setting.notACrewSetting)
        }
        let crew = try session.visibleCrew(name)
        let remove = value.trimmingCharacters(in: .whitespaces) == "site"
        let change: PolicyChange
        do {
            change = try session.changing(dryRun: dryRun.dryRun, output: output) {
                try session.store().policy.setCrewPolicy(crew: crew.name, setting, to: remove ? nil : value,
                                                  defaults: session.config.policy.expiryPolicy,
                                                  actor: session.user.uid, note: note.note)
            }
        } catch let error as StoreError where error.kind == .invalidInput {
            throw CommandError.failed("refused: \(error.message)")
        }
        guard change.changed else {
            output.message(remove ? "\(crew.name) has no \(setting) of its own; nothing was changed"
                           : "\(setting) of \(crew.name) is \(change.after) already; nothing was changed")
            return
        }
        output.record([Column("setting"), Column("before"), Column("after"), Column("source")],
                      [.string(setting.rawValue), .string(change.before), .string(change.after),
                       .string(remove ? "site" : "team \(crew.name)")])
    }
}
