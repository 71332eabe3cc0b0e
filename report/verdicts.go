package report

import (
	"errors"

	"github.com/perfgate/perfgate/result"
)

// Record keeps the comparison's verdicts in the new Results they judged
// and rewrites each of those Results at its Path: each Result gets the
// verdicts of its test on its device model (of its test on every device
// when the comparison was across devices). A Result of a session that did
// not reach Stop was left out of the comparison and is left as it is; so
// is one no verdict is about. The error joins those of every write.
func (c *Comparison) Record(next []*result.Result) error {
	var errs []error
	for _, r := range next {
		if r.Unfinished != nil {
			continue // left out of the comparison; its session may still write it
		}
		model := DeviceKey(r.Device.Manufacturer, r.Device.Model, r.Device.API)
		if c.Options.AcrossDevices {
			model = ""
		}
		vs := c.Verdicts(r.Key(), model)
		if len(vs) == 0 {
			continue
		}
		r.RecordVerdicts(vs...)
		if err := r.WriteFile(r.Path); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
