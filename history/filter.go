package history

import (
	"strings"
	"time"
)

// FilterOf is the Filter a command's filters describe: the series of test,
// step, metric and device ("" for any), the runs of branches (a
// comma-separated list, "" for every branch) that started at or after
// from (ParseTime at now; "" for all). Its error is ParseTime's.
func FilterOf(test, step, metric, device, branches, from string, now time.Time) (Filter, error) {
	f := Filter{Test: test, Step: step, Metric: metric, Device: device}
	for _, b := range strings.Split(branches, ",") {
		if b = strings.TrimSpace(b); b != "" {
			f.Branches = append(f.Branches, b)
		}
	}
	if from != "" {
		t, err := ParseTime(from, now)
		if err != nil {
			return f, err
		}
		f.Since = t
	}
	return f, nil
}
