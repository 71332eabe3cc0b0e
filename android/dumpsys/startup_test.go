package dumpsys

import (
	"errors"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestParseAmStartFixtures(t *testing.T) {
	tests := []struct {
		file string
		want AmStart
		ok   bool
	}{
		{"startup/argent691_api36_emulator_status_timeout.txt", AmStart{Status: "timeout", LaunchState: "UNKNOWN (-1)",
			Activity: "com.anonymous.myapp/.MainActivity", ThisTimeMS: -1, TotalTimeMS: -1, WaitTimeMS: 11639}, false},
		// Activity names the launcher: the app finished before the launch did.
		{"startup/encapp_readme_launchstate_cold_portal.txt", AmStart{Status: "ok", LaunchState: "COLD",
			Activity: "com.facebook.alohaapps.launcher/com.facebook.aloha.app.home.touch.HomeActivity", ThisTimeMS: -1, TotalTimeMS: 1479, WaitTimeMS: 1482, Complete: true}, true},
		// Annotated by its author with "// ..." lines and a trailing space after 1131.
		{"startup/potato62_am_start_W_S_annotated.txt", AmStart{Status: "ok",
			Activity: "com.ziipin.softkeyboard.uzbekistan/com.ziipin.setting.GuideActivity", ThisTimeMS: 1131, TotalTimeMS: 4171, WaitTimeMS: 4190, Complete: true}, true},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := ParseAmStart(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || got.OK() != tc.ok {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseAmStartErrors(t *testing.T) {
	failed := "Starting: Intent { cmp=com.example/.Nope }\nError type 3\nError: Activity class {com.example/com.example.Nope} does not exist.\n"
	if _, err := ParseAmStart([]byte(failed)); !errors.Is(err, ErrAmStartFailed) {
		t.Errorf("err = %v, want ErrAmStartFailed", err)
	}
	for name, in := range map[string]string{
		"empty":     "",
		"no status": "Starting: Intent { cmp=a/.B }\nTotalTime: 5\n",
		"bad time":  "Status: ok\nTotalTime: soon\n",
		"negative":  "Status: ok\nWaitTime: -4\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseAmStart([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func TestParseResumedActivity(t *testing.T) {
	got, ok, err := ParseResumedActivity(fixtures.Read(t, "startup/xiaomi_pad6_api34_dumpsys_activity_activities_section.txt"))
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	want := ActivityRef{Package: "com.termux", Activity: ".app.TermuxActivity", Component: "com.termux/.app.TermuxActivity", User: 0}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// Android 9 and older print mResumedActivity.
	got, ok, err = ParseResumedActivity([]byte("    mResumedActivity: ActivityRecord{5a3c u10 com.android.chrome/org.chromium.chrome.browser.ChromeTabbedActivity t12}\n"))
	if err != nil || !ok || got.Package != "com.android.chrome" || got.User != 10 || got.Activity != "org.chromium.chrome.browser.ChromeTabbedActivity" {
		t.Errorf("old form: %+v %v %v", got, ok, err)
	}
	if _, ok, err := ParseResumedActivity([]byte("  mResumedActivity: null\n")); ok || err != nil {
		t.Errorf("nothing resumed: ok %v err %v", ok, err)
	}
	for name, in := range map[string]string{
		"no user":  "  ResumedActivity: ActivityRecord{1 com.a/.B t1}\n",
		"bad user": "  ResumedActivity: ActivityRecord{1 ux com.a/.B t1}\n",
		"no slash": "  ResumedActivity: ActivityRecord{1 u0 com.a t1}\n",
	} {
		var pe *devtext.ParseError
		if _, _, err := ParseResumedActivity([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func FuzzParseAmStart(f *testing.F) {
	memFuzzAddFixtures(f,
		"startup/argent691_api36_emulator_status_timeout.txt", "startup/encapp_readme_launchstate_cold_portal.txt",
		"startup/potato62_am_start_W_S_annotated.txt")
	f.Add([]byte("  topResumedActivity=ActivityRecord{723ebbb u0 com.termux/.app.TermuxActivity t1082}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseAmStart(b)
		if a, ok, err := ParseResumedActivity(b); err == nil && ok && (a.Package == "" || a.Activity == "") {
			t.Fatalf("empty activity %+v", a)
		}
	})
}
