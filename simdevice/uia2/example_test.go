package uia2_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/perfgate/perfgate/simdevice/uia2"
)

// loginScreen is a one-button screen.
type loginScreen struct{ taps []image.Point }

func (s *loginScreen) Size() (int, int) { return 720, 1280 }
func (s *loginScreen) Elements() []uia2.Element {
	return []uia2.Element{{
		Class: "android.widget.Button", Package: "com.example.app", ResourceID: "com.example.app:id/login",
		Text: "Log in", Bounds: image.Rect(60, 1000, 660, 1120), Clickable: true, Enabled: true,
	}}
}
func (s *loginScreen) Tap(x, y int)                              { s.taps = append(s.taps, image.Pt(x, y)) }
func (s *loginScreen) Swipe(x1, y1, x2, y2 int, d time.Duration) {}
func (s *loginScreen) Key(code int)                              {}
func (s *loginScreen) Type(text string)                          {}
func (s *loginScreen) Info() uia2.DeviceInfo {
	return uia2.DeviceInfo{Model: "sim", APILevel: 34, PlatformVersion: "14", Density: 320}
}

// Any HTTP client reaches the server through Dial, as it would reach the
// real server through adb forward.
func ExampleServer_Dial() {
	screen := &loginScreen{}
	srv := uia2.NewServer(screen)
	defer srv.Close()
	transport := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return srv.Dial(ctx)
	}}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}

	// post sends a command and returns the HTTP status and the reply's value.
	post := func(path, body string) (int, string) {
		resp, err := client.Post("http://device/wd/hub"+path, "application/json", strings.NewReader(body))
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		var reply struct {
			SessionID string          `json:"sessionId"`
			Value     json.RawMessage `json:"value"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
			return resp.StatusCode, err.Error()
		}
		if reply.SessionID != "" && path == "/session" {
			return resp.StatusCode, reply.SessionID
		}
		return resp.StatusCode, string(reply.Value)
	}
	_, sid := post("/session", `{"capabilities":{}}`)
	status, ref := post("/session/"+sid+"/element", `{"strategy":"xpath","selector":"//*[@text='Log in']"}`)
	fmt.Println(status, strings.Contains(ref, `"element-6066-11e4-a52e-4f735466cecf"`))
	fmt.Println(post("/session/"+sid+"/element", `{"strategy":"id","selector":"signup"}`))
	fmt.Println(post("/session/"+sid+"/appium/tap", `{"x":360,"y":1060}`))
	fmt.Println(screen.taps)
	// Output:
	// 200 true
	// 404 {"error":"no such element","message":"an element could not be located on the page using the given search parameters (strategy \"id\", selector \"signup\")","stacktrace":""}
	// 200 null
	// [(360,1060)]
}
