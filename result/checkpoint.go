package result

import (
	"fmt"
	"strconv"
	"time"
)

// A session writes its Result as each step ends, not only at Stop, so that
// a session that never reaches Stop (SIGKILL, a crashed host, os.Exit, a
// test binary's -timeout) still leaves every step it finished on disk. Each
// write goes to the file Stop's write replaces later, whole (a temporary
// file, synced, renamed over it), and says it is unfinished (Unfinished,
// and an Error for readers that know only that): no reader takes it for a
// session that ran to Stop and passed.
//
// A step is written twice: when it ends, with what the session read up to
// then, and again once frame polls after its end brought the frames it
// drew last (they are only known from such a poll; until then its frame
// figures are not measured, and say why). Neither write asks the
// phone for anything: the figures come from what the lanes read.

// Unfinished marks a Result written while its session ran, before Stop:
// the session wrote it as a step ended. A session that reached Stop
// replaced it with its final Result, which has no Unfinished; one that
// did not (killed, crashed, or still running) left this one, whose steps
// are those that had ended, summarised from what had been read by then.
type Unfinished struct {
	// After names the last step that had ended when it was written.
	After string `json:"after"`
	// InStep names the step that had begun since, "" for none.
	InStep string `json:"in_step,omitempty"`
	// Written is when it was written, on the host's wall clock.
	Written time.Time `json:"written"`
}

// Reason is what an Unfinished Result's Error says.
func (u *Unfinished) Reason() string {
	in := ""
	if u.InStep != "" {
		in = " (step " + strconv.Quote(u.InStep) + " in progress)"
	}
	return fmt.Sprintf("unfinished: the session had not reached Stop when this Result was written, after step %q ended%s; it was killed, or it still runs",
		u.After, in)
}
