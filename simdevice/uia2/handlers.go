package uia2

import (
	"fmt"
	"image"
	"maps"
	"strconv"
	"strings"
)

// webElementKey is the W3C element reference key; legacyElementKey is the
// JSON Wire Protocol one. The server sends both, as Appium's does.
const (
	webElementKey    = "element-6066-11e4-a52e-4f735466cecf"
	legacyElementKey = "ELEMENT"
)

type sessionReply struct {
	SessionID    string         `json:"sessionId"`
	Capabilities map[string]any `json:"capabilities"`
}

func (s *Server) status(_ *call) (any, error) {
	return map[string]any{
		"ready":   true,
		"message": "UiAutomator2 Server is ready to accept commands",
	}, nil
}

func (s *Server) newSession(c *call) (any, error) {
	var body struct {
		Capabilities        map[string]any `json:"capabilities"`
		DesiredCapabilities map[string]any `json:"desiredCapabilities"`
	}
	if err := decodeBody(c.w, c.r, &body); err != nil {
		return nil, newErr(errSessionNotCreated, "%v", err)
	}
	caps := map[string]any{}
	src := body.Capabilities
	if src == nil {
		src = body.DesiredCapabilities
	}
	if src == nil {
		return nil, newErr(errInvalidArgument, "'capabilities' are mandatory for session creation")
	}
	// W3C clients nest capabilities in alwaysMatch/firstMatch; older ones send them flat.
	if am, ok := src["alwaysMatch"].(map[string]any); ok {
		maps.Copy(caps, am)
		if fm, ok := src["firstMatch"].([]any); ok && len(fm) > 0 {
			if first, ok := fm[0].(map[string]any); ok {
				maps.Copy(caps, first)
			}
		}
	} else {
		for k, v := range src {
			if k != "firstMatch" {
				caps[k] = v
			}
		}
	}
	info := s.screen.Info()
	w, h := s.screen.Size()
	defaults := map[string]any{
		"platformName":        "Android",
		"automationName":      "UiAutomator2",
		"deviceName":          info.Model,
		"deviceModel":         info.Model,
		"deviceManufacturer":  info.Manufacturer,
		"platformVersion":     info.PlatformVersion,
		"deviceApiLevel":      info.APILevel,
		"deviceScreenSize":    fmt.Sprintf("%dx%d", w, h),
		"deviceScreenDensity": info.Density,
	}
	for k, v := range defaults {
		if _, ok := caps[k]; !ok {
			caps[k] = v
		}
	}
	sess := &session{
		id:       newID(),
		caps:     caps,
		settings: defaultSettings(),
		elems:    map[string]Element{},
		ids:      map[Element]string{},
	}
	s.mu.Lock()
	s.sess = sess
	s.mu.Unlock()
	return sessionReply{SessionID: sess.id, Capabilities: maps.Clone(caps)}, nil
}

func (s *Server) listSessions(_ *call) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := []map[string]any{}
	if s.sess != nil {
		// "id" is what the Appium server sends; guia2 reads "sessionId".
		list = append(list, map[string]any{"id": s.sess.id, "sessionId": s.sess.id, "capabilities": maps.Clone(s.sess.caps)})
	}
	return list, nil
}

func (s *Server) sessionDetails(c *call) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(c.sess.caps), nil
}

func (s *Server) deleteSession(c *call) (any, error) {
	s.mu.Lock()
	if s.sess == c.sess {
		s.sess = nil
	}
	s.mu.Unlock()
	return nil, nil
}

func defaultSettings() map[string]any {
	return map[string]any{
		"actionAcknowledgmentTimeout": 3000,
		"allowInvisibleElements":      false,
		"ignoreUnimportantViews":      false,
		"elementResponseAttributes":   "",
		"enableMultiWindows":          false,
		"enableNotificationListener":  true,
		"keyInjectionDelay":           0,
		"scrollAcknowledgmentTimeout": 200,
		"shouldUseCompactResponses":   true,
		"waitForIdleTimeout":          10000,
		"waitForSelectorTimeout":      10000,
		"normalizeTagNames":           false,
		"shutdownOnPowerDisconnect":   true,
		"trackScrollEvents":           true,
		"snapshotMaxDepth":            70,
	}
}

func (s *Server) getSettings(c *call) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(c.sess.settings), nil
}

func (s *Server) updateSettings(c *call) (any, error) {
	var body struct {
		Settings map[string]any `json:"settings"`
	}
	if err := decodeBody(c.w, c.r, &body); err != nil {
		return nil, err
	}
	if body.Settings == nil {
		return nil, newErr(errInvalidArgument, "'settings' are mandatory for this command")
	}
	s.mu.Lock()
	maps.Copy(c.sess.settings, body.Settings)
	s.mu.Unlock()
	return nil, nil
}

func (s *Server) windowSize(_ *call) (any, error) {
	w, h := s.screen.Size()
	return map[string]int{"width": w, "height": h}, nil
}

func (s *Server) windowRect(_ *call) (any, error) {
	w, h := s.screen.Size()
	return map[string]int{"x": 0, "y": 0, "width": w, "height": h}, nil
}

func (s *Server) source(_ *call) (any, error) {
	w, h := s.screen.Size()
	return buildTree(s.screen.Elements()).xml(w, h, 0), nil
}

func (s *Server) landscape() bool {
	w, h := s.screen.Size()
	return w > h
}

func (s *Server) orientation(_ *call) (any, error) {
	if s.landscape() {
		return "LANDSCAPE", nil
	}
	return "PORTRAIT", nil
}

func (s *Server) setOrientation(c *call) (any, error) {
	var body struct {
		Orientation string `json:"orientation"`
	}
	if err := decodeBody(c.w, c.r, &body); err != nil {
		return nil, err
	}
	want := strings.ToUpper(body.Orientation)
	if want != "LANDSCAPE" && want != "PORTRAIT" {
		return nil, newErr(errInvalidArgument, "orientation must be LANDSCAPE or PORTRAIT, got %q", body.Orientation)
	}
	if (want == "LANDSCAPE") != s.landscape() {
		return nil, newErr(errUnsupported, "the simulated screen cannot rotate to %s", want)
	}
	return nil, nil
}

func (s *Server) rotation(_ *call) (any, error) {
	z := 0
	if s.landscape() {
		z = 90
	}
	return map[string]int{"x": 0, "y": 0, "z": z}, nil
}

func (s *Server) setRotation(c *call) (any, error) {
	var body struct {
		Z *int `json:"z"`
	}
	if err := decodeBody(c.w, c.r, &body); err != nil {
		return nil, err
	}
	if body.Z == nil || *body.Z%90 != 0 || *body.Z < 0 || *body.Z > 270 {
		return nil, newErr(errInvalidArgument, "rotation z must be one of 0, 90, 180, 270")
	}
	if (*body.Z%180 != 0) != s.landscape() {
		return nil, newErr(errUnsupported, "the simulated screen cannot rotate to %d degrees", *body.Z)
	}
	return nil, nil
}

func (s *Server) deviceInfo(_ *call) (any, error) {
	info := s.screen.Info()
	w, h := s.screen.Size()
	return map[string]any{
		"androidId":       info.AndroidID,
		"manufacturer":    info.Manufacturer,
		"model":           info.Model,
		"brand":           info.Brand,
		"apiVersion":      strconv.Itoa(info.APILevel),
		"platformVersion": info.PlatformVersion,
		"carrierName":     info.CarrierName,
		"realDisplaySize": fmt.Sprintf("%dx%d", w, h),
		"displayDensity":  info.Density,
		"networks":        []any{},
		"locale":          info.Locale,
		"timeZone":        info.TimeZone,
		"bluetooth":       map[string]string{"state": "OFF"},
	}, nil
}

// pixelRatio is DisplayMetrics.density: dots per inch over the 160 dpi baseline.
func (s *Server) pixelRatio(_ *call) (any, error) {
	d := s.screen.Info().Density
	if d <= 0 {
		return 1.0, nil
	}
	return float64(d) / 160, nil
}

func (s *Server) systemBars(_ *call) (any, error) {
	return map[string]int{"statusBar": s.screen.Info().StatusBar}, nil
}

func (s *Server) batteryInfo(_ *call) (any, error) {
	info := s.screen.Info()
	status := info.BatteryStatus
	if status == 0 {
		status = 1 // BATTERY_STATUS_UNKNOWN
	}
	return map[string]any{"level": info.Battery, "status": status}, nil
}

// center is android.graphics.Rect's centerX/centerY.
func center(r image.Rectangle) (int, int) {
	return (r.Min.X + r.Max.X) >> 1, (r.Min.Y + r.Max.Y) >> 1
}

func elementRef(id string) map[string]string {
	return map[string]string{legacyElementKey: id, webElementKey: id}
}
