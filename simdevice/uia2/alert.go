package uia2

import "strings"

// Android's AlertDialog views; the Appium server finds alerts by them too.
const (
	alertMessageID = "android:id/message"
	alertTitleID   = "android:id/alertTitle"
	alertAcceptID  = "android:id/button1"
	alertDismissID = "android:id/button2"
)

// alert returns the on-screen dialog's text and buttons, or ok=false.
func (s *Server) alert() (text string, buttons []Element, ok bool) {
	var title string
	for _, e := range s.screen.Elements() {
		switch e.ResourceID {
		case alertMessageID:
			text, ok = e.Text, true
		case alertTitleID:
			title, ok = e.Text, true
		case alertAcceptID, alertDismissID, "android:id/button3":
			buttons = append(buttons, e)
		}
	}
	if text == "" {
		text = title
	}
	return text, buttons, ok
}

func noAlert() error {
	return newErr(errNoSuchAlert, "an attempt was made to operate on a modal dialog when one was not open")
}

func (s *Server) alertText(_ *call) (any, error) {
	text, _, ok := s.alert()
	if !ok {
		return nil, noAlert()
	}
	return text, nil
}

func (s *Server) alertAccept(c *call) (any, error) { return s.alertButton(c, alertAcceptID) }

func (s *Server) alertDismiss(c *call) (any, error) { return s.alertButton(c, alertDismissID) }

func (s *Server) alertButton(c *call, defaultID string) (any, error) {
	var req struct {
		ButtonLabel *string `json:"buttonLabel"`
	}
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	_, buttons, ok := s.alert()
	if !ok {
		return nil, noAlert()
	}
	for _, b := range buttons {
		if req.ButtonLabel != nil && strings.EqualFold(b.Text, *req.ButtonLabel) ||
			req.ButtonLabel == nil && b.ResourceID == defaultID {
			s.screen.Tap(center(b.Bounds))
			return nil, nil
		}
	}
	label := defaultID
	if req.ButtonLabel != nil {
		label = *req.ButtonLabel
	}
	return nil, newErr(errInvalidElemState, "the open dialog has no button %q", label)
}
