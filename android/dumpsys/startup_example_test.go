package dumpsys_test

import (
	"fmt"

	"github.com/perfgate/perfgate/android/dumpsys"
)

func ExampleParseAmStart() {
	a, err := dumpsys.ParseAmStart([]byte(`Starting: Intent { cmp=com.example.app/.MainActivity }
Status: ok
LaunchState: COLD
Activity: com.example.app/.MainActivity
TotalTime: 1479
WaitTime: 1482
Complete
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.OK(), a.LaunchState, a.TotalTimeMS, a.ThisTimeMS)
	// Output: true COLD 1479 -1
}
