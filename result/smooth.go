package result

// SmoothnessStats is GT's smoothness over a step (DESIGN.md "GT smoothness"):
// per whole second, SM = max(0, refresh rate − the frames the app's
// Choreographer logged as skipped in that second).
type SmoothnessStats struct {
	Source    string  `json:"source"`
	RefreshHz float64 `json:"refresh_hz"`
	// MinSM is the step's lowest second; the refresh rate when the app
	// skipped nothing.
	MinSM float64 `json:"min_sm"`
	// Skipped is every frame the step's lines report skipped.
	Skipped int `json:"skipped"`
}
