// MICommands module.
