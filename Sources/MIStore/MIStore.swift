// MIStore module.
