// MIDirectory module.
