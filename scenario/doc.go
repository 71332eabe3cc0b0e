// Package scenario drives an Android app through uiautomator2 and measures
// each action as a step of a perftest session: launch (cold, warm, hot,
// with startup time as Macrobenchmark reports it), tap, swipe, fling, keys,
// text, waits.
//
//	sc := scenario.Start(t, dev, "com.example.feed")
//	sc.Step("launch", scenario.Launch(scenario.Cold))
//	sc.Step("open feed", scenario.Tap(scenario.Text("Feed")))
//	sc.Step("scroll feed", scenario.Swipe(scenario.Up, 5))
//	r := sc.Stop()
//	assert.MaxStartup(t, r.Step("launch"), 800*time.Millisecond)
//	assert.MaxJank(t, r.Step("scroll feed"), 3)
//
// A scenario file (the JSON `perfgate run` reads) says the same without
// Go: ParseFile checks it into a File, whose Config, Run and Judge are the
// session, its steps and its budgets.
//
// The uiautomator2 server is the Appium UiAutomator2 server on a phone
// (device port 6790, reached through an adb forward) or the simulated
// device's own. Requests go through guia2 with a client of this package's
// own, never http.DefaultClient, and one device is driven by one goroutine
// at a time.
package scenario
