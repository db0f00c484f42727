import MILaunch

// The command line is parsed, and the console launched, by MILaunch (MIAdminCommand).
MIAdminCommand.main()
