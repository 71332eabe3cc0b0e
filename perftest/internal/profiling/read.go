package profiling

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/profiler"
	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
)

// Read reads each finished recording's samples and removes its file.
func (p *Profiler) Read(ctx context.Context) ([]causes.Sample, []string) {
	p.mu.Lock()
	runs := slices.Clone(p.runs)
	art := p.source == sourceARTProfile
	p.mu.Unlock()
	var out []causes.Sample
	var notes []string
	for _, r := range runs {
		p.mu.Lock()
		ok := r.ok()
		p.mu.Unlock()
		if !ok {
			continue
		}
		if art {
			ss, note, lost := p.readARTTrace(ctx, r)
			out = append(out, ss...)
			if note != "" {
				notes = append(notes, note)
			}
			if lost {
				p.mu.Lock()
				r.lose(strings.TrimPrefix(note, "stacks: "))
				p.mu.Unlock()
			}
			continue
		}
		report := "simpleperf report-sample --show-callchain -i " + r.file
		rep, err := p.readReport(ctx, report, r.pid)
		// The recording is read, or cannot be: either way it goes.
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		p.batch(rctx, []string{"rm -f " + r.file})
		cancel()
		if err != nil {
			notes = append(notes, "stacks: "+err.Error())
			p.mu.Lock()
			r.lose(err.Error())
			p.mu.Unlock()
			continue
		}
		for _, s := range rep.Samples {
			out = append(out, causes.SampleOf(s, p.pkg))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TimeNs < out[j].TimeNs })
	return out, notes
}

// readReport runs simpleperf's sample report and keeps the samples of
// thread tid. Where the device streams (adb), the report is read as it is
// printed, holding only the samples kept: report-sample prints 1–6 KB a
// sample, so a minute of a main thread busy throughout at 1000 Hz is some
// 200 MB of text, past what one shell call may read (adbx
// Options.MaxOutput). A device that cannot stream runs it in a batch.
func (p *Profiler) readReport(ctx context.Context, report string, tid int) (*profiler.SimpleperfSamples, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	keep := func(s *profiler.StackSample) bool { return s.TID == tid }
	if p.stream != nil {
		rc, err := p.stream(ctx, report)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", report, err)
		}
		defer rc.Close()
		rep, err := profiler.ReadSimpleperfSamples(rc, keep)
		var exit *adbx.ExitError
		if errors.As(err, &exit) {
			return nil, exit // it names the command
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", report, err)
		}
		return rep, nil
	}
	res, err := p.batch(ctx, []string{report})
	if err == nil && len(res) != 1 {
		err = fmt.Errorf("batch of 1 command returned %d results", len(res))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", report, err)
	}
	if res[0].ExitCode != 0 {
		return nil, errors.New(devcmd.Failure(res[0], report))
	}
	rep, err := profiler.ReadSimpleperfSamples(bytes.NewReader(res[0].Stdout), keep)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", report, err)
	}
	return rep, nil
}

// readARTTrace reads the trace ART's profiler wrote for recording r and
// removes it. The app writes the file after `am profile stop` returned, so
// a file not yet whole is read again, every 100 ms for at most 5 s.
func (p *Profiler) readARTTrace(ctx context.Context, r *profRun) (samples []causes.Sample, note string, lost bool) {
	cmd := "cat " + r.file
	defer func() {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		p.batch(rctx, []string{"rm -f " + r.file})
		cancel()
	}()
	var why string
	for try := 0; try < 50; try++ {
		if try > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		res, err := p.batch(rctx, []string{cmd})
		cancel()
		switch {
		case err != nil:
			return nil, fmt.Sprintf("stacks: %s: %v", cmd, err), true
		case len(res) != 1:
			return nil, fmt.Sprintf("stacks: %s: batch of 1 command returned %d results", cmd, len(res)), true
		case res[0].ExitCode != 0:
			return nil, "stacks: " + devcmd.Failure(res[0], cmd), true
		}
		tr, err := profiler.ParseARTTrace(res[0].Stdout)
		if err != nil {
			why = fmt.Sprintf("stacks: %s: %v", cmd, err)
			continue
		}
		var out []causes.Sample
		for _, s := range tr.Resample(r.intervalUs) {
			if s.TID == r.pid {
				out = append(out, causes.SampleOf(s, p.pkg))
			}
		}
		if tr.Overflow {
			return out, fmt.Sprintf("stacks: the ART trace of pid %d filled its buffer (data-file-overflow=true): samples after that are lost", r.pid), false
		}
		return out, "", false
	}
	return nil, why + " (still after 5 s)", true
}

// FailedNote is the note a failed recording makes at Stop, "" when none
// failed.
func (p *Profiler) FailedNote() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failed == "" {
		return ""
	}
	if !p.refused {
		return "stacks: " + p.failed + "; stacks are not measured, everything else is"
	}
	return "stacks: " + p.failed + "; stacks are not measured (" + needs(p.source) + "), everything else is"
}

// Why says why a step whose ticks saw the app's processes stepPIDs has no
// sampled stacks, "" when it may have; read says Stop read the
// recordings.
func (p *Profiler) Why(stepPIDs []int, read bool) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.why != "":
		return p.why
	case !read:
		return "stacks: the profiler was not read (the session ended before Stop)"
	case len(stepPIDs) == 0 && p.failed != "" && p.refused:
		return "stacks: " + p.failed + " (" + needs(p.source) + "; everything else is still measured)"
	case len(stepPIDs) == 0 && p.failed != "":
		return "stacks: " + p.failed + " (everything else is still measured)"
	}
	for _, pid := range stepPIDs {
		var lost *profRun
		covered := false
		for _, r := range p.runs {
			if r.pid != pid {
				continue
			}
			if r.ok() {
				covered = true
			} else if lost == nil {
				lost = r
			}
		}
		switch {
		case covered:
		case lost != nil && lost.refused():
			// The profiler refused: what it needs of the app.
			return "stacks: " + lost.why + " (" + needs(p.source) + "; everything else is still measured)"
		case lost != nil:
			return "stacks: " + lost.why + " (everything else is still measured)"
		default:
			return fmt.Sprintf("stacks: the app's process (pid %d) was not recorded", pid)
		}
	}
	return ""
}

// needs says what the profiler needs of the app.
func needs(source string) string {
	if source == sourceARTProfile {
		return "ART's sampling profiler profiles debuggable apps"
	}
	return "simpleperf profiles apps that are debuggable, or profileable from the shell on Android 10+"
}

// Cleanup stops any recording Stop did not read (a session that ended
// early; read says Stop read them), removing its file, within ctx.
func (p *Profiler) Cleanup(ctx context.Context, read bool) {
	p.mu.Lock()
	runs := slices.Clone(p.runs)
	art := p.source == sourceARTProfile
	p.mu.Unlock()
	for _, r := range runs {
		if art {
			// ART's profiler runs until asked to stop; Stop read it unless
			// the session ended early.
			<-r.done
			if !read && r.err == nil && r.res.ExitCode == 0 {
				p.batch(ctx, []string{fmt.Sprintf("am profile stop %d", r.pid), "rm -f " + r.file})
			}
			continue
		}
		select {
		case <-r.done:
			continue // stopped and read, or it ended by itself
		default:
		}
		p.interrupt(ctx, r)
		select {
		case <-r.done:
		case <-ctx.Done():
			r.cancel()
			<-r.done
		}
		p.batch(ctx, []string{"rm -f " + r.file})
	}
}
