package energy

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/result"
)

// minSignMA is the smallest current whose sign counts: a phone on a
// charger that holds its battery full ("not charging") reports a few mA
// either way, and so may a driver's offset.
const minSignMA = 1

// Convention is a battery current's sign convention: Discharge is the
// sign of a discharging current (-1 or +1), 0 when it cannot be told;
// Text names it and how it was told.
type Convention struct {
	Discharge int
	Text      string
}

// Detect tells the sign convention from reads of one phone: a current
// read while the battery says it discharges has the discharge's sign; one
// read while it charges, the other; without either, a level that fell
// while every current had one sign. Reads that disagree, or none that
// tell, give Discharge 0 and say why: the energy figures are then absent,
// never guessed.
func Detect(reads []Reading) Convention {
	var dis, chg [2]int // reads by sign: [0] negative, [1] positive
	var sign [2]int
	firstLevel, lastLevel := math.NaN(), math.NaN()
	var statuses []string
	for _, r := range reads {
		if r.HasLevel {
			if math.IsNaN(firstLevel) {
				firstLevel = r.LevelPct
			}
			lastLevel = r.LevelPct
		}
		if !r.HasCurrent {
			continue
		}
		statuses = appendNew(statuses, r.Status)
		if math.Abs(r.CurrentMA) < minSignMA {
			continue
		}
		k := 0
		if r.CurrentMA > 0 {
			k = 1
		}
		sign[k]++
		switch r.Status {
		case "discharging":
			dis[k]++
		case "charging":
			chg[k]++
		}
	}
	if sign[0]+sign[1] == 0 {
		if len(statuses) == 0 {
			return Convention{Text: "cannot be told: no read has a current"}
		}
		return Convention{Text: fmt.Sprintf("cannot be told: every current is under %d mA", minSignMA)}
	}
	switch {
	case dis[0] > 0 && dis[1] > 0:
		return Convention{Text: fmt.Sprintf("cannot be told: status discharging with %d negative and %d positive currents", dis[0], dis[1])}
	case dis[0] > 0:
		return Convention{-1, fmt.Sprintf("negative = discharging (detected: status discharging, current < 0 in %s)", nreads(dis[0]))}
	case dis[1] > 0:
		return Convention{+1, fmt.Sprintf("positive = discharging (detected: status discharging, current > 0 in %s)", nreads(dis[1]))}
	case chg[0] > 0 && chg[1] > 0:
		return Convention{Text: fmt.Sprintf("cannot be told: status charging with %d negative and %d positive currents (a phone on a weak charger may still discharge)", chg[0], chg[1])}
	case chg[1] > 0:
		return Convention{-1, fmt.Sprintf("negative = discharging (detected: status charging, current > 0 in %s)", nreads(chg[1]))}
	case chg[0] > 0:
		return Convention{+1, fmt.Sprintf("positive = discharging (detected: status charging, current < 0 in %s)", nreads(chg[0]))}
	case lastLevel < firstLevel && (sign[0] == 0 || sign[1] == 0):
		d, name := -1, "negative"
		if sign[1] > 0 {
			d, name = 1, "positive"
		}
		return Convention{d, fmt.Sprintf("%s = discharging (detected: level fell %g%% → %g%% with every current %s)", name, firstLevel, lastLevel, name)}
	}
	return Convention{Text: fmt.Sprintf("cannot be told: status %v says neither charging nor discharging, and the level did not fall", statuses)}
}

func nreads(n int) string {
	if n == 1 {
		return "1 read"
	}
	return fmt.Sprintf("%d reads", n)
}

func appendNew(list []string, s string) []string {
	if s == "" {
		s = "unknown"
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Reading is one read of the battery for Detect: its current in the
// phone's sign, the status it reported beside it ("discharging",
// "charging", "full", "not charging", "unknown") and its level.
type Reading struct {
	CurrentMA  float64
	HasCurrent bool
	Status     string
	LevelPct   float64
	HasLevel   bool
}

// readings are a lane's samples as Detect reads them.
func readings(ps []result.PowerSample) []Reading {
	out := make([]Reading, len(ps))
	for i, p := range ps {
		out[i] = Reading{CurrentMA: p.CurrentMA, HasCurrent: true, Status: p.Status}
	}
	return out
}
