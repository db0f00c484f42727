import ArgumentParser
import MICommands

/// `miadmin --generate-manual`: the man page miadmin.1 (roff, man macros), generated from the
/// command definitions — the command line's own help and every console command's help from
/// `CommandRegistry` — so it never drifts from `--help` and `help CMD`. Scripts/install writes
/// it to PREFIX/share/man/man1/miadmin.1.
enum ManualPage {
    static func render() -> String {
        var page = """
            .TH MIADMIN 1 "" "miadmin" "User Commands"
            .SH NAME
            miadmin \\- \(escape(MIAdminCommand.configuration.abstract))
            .SH SYNOPSIS
            .B miadmin
            [\\fIoptions\\fR] [\\fB\\-c\\fR \\fIcommand\\fR ... | \\fB\\-f\\fR \\fIfile\\fR]
            .SH DESCRIPTION

            """
        page += preformatted(MIAdminCommand.helpMessage(columns: 100))
        page += ".SH CONSOLE COMMANDS\n"
        page += "Each command below runs at the prompt, from \\fB-c\\fR, a script file or a pipe. "
            + "ROLES names the directory roles that may run it.\n"
        for command in CommandRegistry.commands {
            page += ".SS \(escape(command.name))\n"
            page += preformatted(CommandRegistry.helpText(for: [command.name]) ?? command.configuration.abstract)
            for sub in command.configuration.subcommands.compactMap({ $0 as? any ConsoleCommand.Type }) {
                page += ".SS \(escape(command.name + " " + sub.name))\n"
                page += preformatted(CommandRegistry.helpText(for: [command.name, sub.name]) ?? sub.configuration.abstract)
            }
        }
        page += ".SH CONSOLE WORDS\n"
        page += "Handled by the console itself (psql's backslash commands for scripts among them; "
            + "docs/user-guide.md, \"Scripts\").\n"
        for builtin in CommandRegistry.builtins {
            page += ".TP\n.B \(escape(([builtin.name] + builtin.aliases).joined(separator: ", ")))\n\(escape(builtin.abstract))\n"
        }
        page += """
            .SH FILES
            .TP
            .I /etc/miadmin/config.json
            The system config (PREFIX/etc/miadmin for other prefixes); the only one the installed binary reads.
            .TP
            .I /var/lib/miadmin/store.sqlite
            The shared store, readable and writable by the miadmin group only.
            .TP
            .I ~/.local/state/miadmin/history-UID
            The prompt's history.
            .SH SEE ALSO
            docs/install.md, docs/security.md, docs/commands.md in the miadmin sources.

            """
        return page
    }

    /// Help text kept as laid out (no filling), with roff's special characters escaped.
    static func preformatted(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let escaped = escape(String(line))
            return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
        }
        return ".nf\n" + lines.joined(separator: "\n") + "\n.fi\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    }
}
