@testable import MIConsole
import Testing

@Suite struct MessageStyleTests {
    @Test(arguments: [
        ("There is no store at /x.", "there is no store at /x"),
        ("No form 2.", "no form 2"),
        ("PostgreSQL refused the login.", "PostgreSQL refused the login"),
        ("LDAP server unreachable", "LDAP server unreachable"),
        ("'Pump' is taken.", "'Pump' is taken"),
        ("wait...", "wait..."),
        ("no form 2", "no form 2"),
    ])
    func aSentenceInTheHouseStyle(example: (message: String, styled: String)) {
        #expect(MessageStyle.sentence(example.message) == example.styled)
    }

    @Test(arguments: [
        ("Missing expected argument '--note <text>'", "missing --note <text>"),
        ("Missing value for '--pdf <file>'", "missing the value of --pdf <file>"),
        ("The value 'foo' is invalid for '<setting>'. Please provide one of 'a', 'b' or 'c'.",
         "'foo' is not a setting: give one of 'a', 'b' or 'c'"),
        ("The value 'x' is invalid for '--state <state>'. Please provide one of the following:\n  - a\n  - b\n  - c",
         "--state: 'x' is not one of 'a', 'b' or 'c'"),
        ("The value 'someday' is invalid for '--since <when>'", "--since: 'someday' is not a valid value"),
        ("The value 'jdoe' is invalid for '<form>'", "'jdoe' is not a form"),
        ("The value 'abc' is invalid for '<form>': 'abc' is not a form reference: give a numeric id or owner/name.",
         "'abc' is not a form reference: give a numeric id or owner/name"),
        ("The value 'someday' is invalid for '--since <when>': not a time; use one of: now, today",
         "--since: 'someday': not a time; use one of: now, today"),
        ("Unknown option '--bogus'", "unknown option '--bogus'"),
        ("2 unexpected arguments: 'a', 'b'", "2 unexpected arguments: 'a', 'b'"),
    ])
    func theParsersWords(example: (message: String, styled: String)) {
        #expect(MessageStyle.parserMessage(example.message) == example.styled)
    }
}
