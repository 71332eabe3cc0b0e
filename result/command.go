package result

// Command is a command of the host that a step ran around: what ran, how
// it ended and where its output is.
type Command struct {
	Argv []string `json:"argv"`
	// Exit is its exit status; -1 when it did not exit by itself (it was
	// stopped, ran past its timeout, or never started).
	Exit int `json:"exit"`
	// Log is the file its output was kept in, in the Result's folder; ""
	// when none was kept.
	Log string `json:"log,omitempty"`
}
