import MIConsole

@main
struct MIAdminMain {
    static func main() {}
}
