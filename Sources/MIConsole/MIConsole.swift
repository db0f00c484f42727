// MIConsole module.
