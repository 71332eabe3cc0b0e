package devicepool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/procfs"
)

// DefaultWait bounds how long a lease waits for a free device when
// Config.Wait is zero.
const DefaultWait = 10 * time.Minute

// ErrNoFreeDevice means a lease waited Config.Wait and every device matching
// it stayed busy; ErrPoolEmpty that no device is left to wait for.
var (
	ErrNoFreeDevice = errors.New("no free device")
	ErrPoolEmpty    = errors.New("no device left in the pool")
)

// A Member is one device of a pool: the device, opened through its adb
// server, and its facts as the pool read them when it opened it.
type Member struct {
	*adbx.Device
	Facts procfs.DeviceFacts
	// Identity is the phone's, read when the pool opened it; the zero
	// Identity when it could not be read (see Pool.Notes), and the
	// device is then taken for a phone of its own.
	Identity Identity
	// Others are the other paths to the same phone the pool found (another
	// adb server, or TCP beside USB): it leases a phone once, through the
	// Member's own path, and leaves these unused.
	Others []Path
}

// path is the way the pool reaches the member.
func (m *Member) path() Path { return Path{Server: m.Server(), Serial: m.Serial()} }

// String names the member as errors and test names do: "Google Pixel 7
// (API 33, sim-3 on 127.0.0.1:5037)".
func (m *Member) String() string {
	return fmt.Sprintf("%s (API %d, %s on %s)", m.name(), m.Facts.API, m.Serial(), m.Server())
}

// name is the device's model name, else its serial.
func (m *Member) name() string {
	if n := m.Facts.Name(); n != "" {
		return n
	}
	return m.Serial()
}

// A Pool is a set of devices behind one or more adb servers, leased by
// tests. Its methods are safe for concurrent use.
type Pool struct {
	cfg Config

	notes []string // what New says about the devices it found

	mu      sync.Mutex
	members []*slot
	changed chan struct{} // closed and replaced whenever a slot changes
}

// slot is a member and who holds it.
type slot struct {
	m      *Member
	holder string // the test holding it; "" when free
	leases int    // how many times it was leased, to spread tests out
	gone   error  // why it left the pool; nil while in it
}

// New opens every device in the "device" state on each of cfg's servers
// that passes cfg's filters, and reads its facts and its Identity. It
// fails when a server does not answer, when a device cannot be opened, or
// when no device is left, listing what each server had and why each
// device was left out.
//
// A phone that two servers list, or one server under two serials (on USB
// and over TCP at once), is one member: leased twice, two tests would
// drive it at once. The pool reaches it through its first path not over
// TCP (see Path.TCP), else through the first server listed, keeps the
// others in Member.Others, and says so in Notes.
func New(ctx context.Context, cfg Config) (*Pool, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Pool{cfg: cfg, changed: make(chan struct{})}
	var skipped []string
	for _, server := range cfg.Servers {
		list, err := adbx.List(ctx, server)
		if err != nil {
			return nil, fmt.Errorf("devicepool: server %s: %w", server, err)
		}
		for _, info := range list {
			if info.State != "device" {
				skipped = append(skipped, fmt.Sprintf("%s on %s is %s", info.Serial, server, info.State))
				continue
			}
			if !cfg.Filter.serialOK(info.Serial) {
				skipped = append(skipped, fmt.Sprintf("%s on %s: serial does not match %q", info.Serial, server, cfg.Filter.Serial))
				continue
			}
			d, err := adbx.Open(ctx, adbx.Options{Server: server, Serial: info.Serial, Timeout: cfg.Timeout})
			if err != nil {
				return nil, fmt.Errorf("devicepool: %w", err)
			}
			facts, _, err := d.Facts(ctx)
			if err != nil {
				return nil, fmt.Errorf("devicepool: %s on %s: %w", info.Serial, server, err)
			}
			m := &Member{Device: d, Facts: facts}
			if why := cfg.Filter.why(facts); why != "" {
				skipped = append(skipped, fmt.Sprintf("%s: %s", m, why))
				continue
			}
			if m.Identity, err = readIdentity(ctx, m); err != nil {
				p.notes = append(p.notes, fmt.Sprintf("%s: identity not read (%v): were it reached another way too, it would be leased twice", m.path(), err))
			}
			p.members = append(p.members, &slot{m: m})
		}
	}
	var same []string
	p.members, same = samePhones(p.members, cfg.Servers)
	p.notes = append(p.notes, same...)
	if len(p.members) == 0 {
		if len(skipped) == 0 {
			skipped = []string{"none attached"}
		}
		return nil, fmt.Errorf("devicepool: %w on %s (%s)", ErrPoolEmpty, strings.Join(cfg.Servers, ", "), strings.Join(skipped, "; "))
	}
	return p, nil
}

// Notes says what New found that a user should know: each phone it
// reached more than one way, every path to it and the one it leases
// ("one phone: sim-1 on 127.0.0.1:5037, sim-1 on 10.0.0.2:5037; leased as
// sim-1 on 127.0.0.1:5037 (the first server listed)"), and each device
// whose Identity it could not read.
func (p *Pool) Notes() []string { return slices.Clone(p.notes) }

// Members lists the devices in the pool now, busy or free, in the order
// New found them; devices that left are not listed.
func (p *Pool) Members() []*Member {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*Member
	for _, s := range p.members {
		if s.gone == nil {
			out = append(out, s.m)
		}
	}
	return out
}

// PerModel lists one device of each model (Facts.Name and API level) in
// the pool, the first New found.
func (p *Pool) PerModel() []*Member {
	seen := map[string]bool{}
	var out []*Member
	for _, m := range p.Members() {
		k := fmt.Sprintf("%s/%d", m.name(), m.Facts.API)
		if !seen[k] {
			seen[k] = true
			out = append(out, m)
		}
	}
	return out
}

// Acquire leases a free device that want accepts (any when want is nil)
// for holder, a name that errors show (a test's name). It waits while all
// such devices are busy, until ctx ends or Config.Wait passes, and fails at
// once when none is left. Give the device back with Release.
func (p *Pool) Acquire(ctx context.Context, holder string, want func(*Member) bool) (*Member, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Wait)
	defer cancel()
	for {
		p.mu.Lock()
		var pick *slot
		var busy []string
		for _, s := range p.members {
			if s.gone != nil || want != nil && !want(s.m) {
				continue
			}
			if s.holder != "" {
				busy = append(busy, fmt.Sprintf("%s held by %s", s.m.Serial(), s.holder))
				continue
			}
			if pick == nil || s.leases < pick.leases {
				pick = s
			}
		}
		if pick != nil {
			pick.holder = holder
			pick.leases++
			p.mu.Unlock()
			return pick.m, nil
		}
		changed := p.changed
		p.mu.Unlock()
		if len(busy) == 0 {
			return nil, fmt.Errorf("devicepool: %s: %w%s", holder, ErrPoolEmpty, p.goneList(want))
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("devicepool: %s: %w after waiting %s: %s", holder, ErrNoFreeDevice, p.cfg.Wait, strings.Join(busy, ", "))
		}
	}
}

// goneList says which of the devices want accepts left the pool, and why.
func (p *Pool) goneList(want func(*Member) bool) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var gone []string
	for _, s := range p.members {
		if s.gone != nil && (want == nil || want(s.m)) {
			gone = append(gone, fmt.Sprintf("%s: %v", s.m, s.gone))
		}
	}
	if len(gone) == 0 {
		return " (none matches)"
	}
	return " (left: " + strings.Join(gone, "; ") + ")"
}

// Release gives a leased device back. The pool first checks that its adb
// server still lists it online; a device that is not leaves the pool, and
// Release returns why (wrapping adbx.ErrDeviceGone), for the test to fail
// with.
func (p *Pool) Release(m *Member) error {
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.Timeout)
	defer cancel()
	err := present(ctx, m)
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.members, func(s *slot) bool { return s.m == m })
	if i < 0 {
		return fmt.Errorf("devicepool: release of %s, not a device of this pool", m)
	}
	s := p.members[i]
	holder := s.holder
	s.holder = ""
	if err != nil {
		s.gone = err
		err = fmt.Errorf("devicepool: %s disappeared during %s and leaves the pool: %w", m, holder, err)
	}
	close(p.changed)
	p.changed = make(chan struct{})
	return err
}

// present checks that m's server lists m in the "device" state.
func present(ctx context.Context, m *Member) error {
	list, err := adbx.List(ctx, m.Server())
	if err != nil {
		return fmt.Errorf("%w: server %s: %w", adbx.ErrDeviceGone, m.Server(), err)
	}
	for _, info := range list {
		if info.Serial == m.Serial() {
			if info.State != "device" {
				return fmt.Errorf("%w: %s is %s", adbx.ErrDeviceGone, m.Serial(), info.State)
			}
			return nil
		}
	}
	return fmt.Errorf("%w: %s no longer listed by %s", adbx.ErrDeviceGone, m.Serial(), m.Server())
}
