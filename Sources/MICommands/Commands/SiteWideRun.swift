import MIDirectory

extension Session {
    /// Refuses `command`, a run over the whole store that a timer makes (`expire`, `purge`,
    /// `remind`), to a foreman whose crews hold no technician but himself where the site keeps
    /// crews: he leads none, or (`teams.source: manager`) only the crew of himself. His scope is
    /// his own forms, so the run would find nothing and report success every night while the
    /// forms it was meant for pile up; refusing names the fix instead. A foreman of some crews
    /// works on those (his choice); support staff and site leads on every crew; no check without crews.
    func refuseWithoutTechnicians(_ command: String) throws {
        let reach = try crewReach()
        guard reach.kind == .crews else { return }
        let me = user.uid.nfc.lowercased()
        guard (reach.scope.owners ?? []).allSatisfy({ $0.lowercased() == me }) else { return }
        let group = directory.crewSettings?.allCrewsGroup.map { "teams.allTeamsGroup (\($0))" }
            ?? "the group teams.allTeamsGroup names (none is set in \(config.file))"
        throw CommandError.permissionDenied(
            "'\(command)' would see only your own forms: your crews hold no technician but you, and this site keeps crews; "
            + "an account that runs it for the whole site, such as a timer's, belongs in \(group) (docs/install.md)")
    }
}
