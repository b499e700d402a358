package kit

// resourceConfig collects what the resource options set.
type resourceConfig struct{}
