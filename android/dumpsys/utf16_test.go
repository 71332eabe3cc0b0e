package dumpsys

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/internal/fixtures"
)

// procUTF16CRLF re-encodes text the way Windows PowerShell saves
// `adb shell ... > file`: UTF-16LE with a byte-order mark and CRLF.
func procUTF16CRLF(b []byte) []byte {
	s := strings.ReplaceAll(string(b), "\n", "\r\n")
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// Every parser gives the same result for a capture and its UTF-16LE/CRLF copy.
func TestParsersAcceptUTF16CRLF(t *testing.T) {
	parsers := []struct {
		file  string
		parse func([]byte) (any, error)
	}{
		{"proc/unidbg_rootfs_8core_2025_proc_stat.txt", func(b []byte) (any, error) { return procfs.ParseStat(b) }},
		{"proc/flashlight_task_stats_threads.txt", func(b []byte) (any, error) { return procfs.ParsePidStats(b) }},
		{"proc/unidbg_rootfs_pid_stat_apk_protect.txt", func(b []byte) (any, error) { return procfs.ParsePidStat(b) }},
		{"proc/unidbg_rootfs_pid_status_apk_protect.txt", func(b []byte) (any, error) { return procfs.ParseStatus(b) }},
		{"meminfo/frameprobe_samsung_s23_api34.txt", func(b []byte) (any, error) { return ParseMeminfo(b) }},
		{"traffic/blog2017_xt_qtaguid_stats_grep_uid.txt", func(b []byte) (any, error) { return procfs.ParseTrafficQtaguid(b) }},
		{"traffic/xiaomi_pad6_api34_dumpsys_netstats.txt", func(b []byte) (any, error) { return ParseNetstats(b) }},
		{"battery/frameprobe_samsung_s23_api34_dumpsys_battery.txt", func(b []byte) (any, error) { return ParseBattery(b) }},
		{"battery/mtk_battery_uevent_from_perl_comment.txt", func(b []byte) (any, error) { return ParseBatteryUevent(b) }},
		{"startup/encapp_readme_launchstate_cold_portal.txt", func(b []byte) (any, error) { return ParseAmStart(b) }},
		{"package_ps/xiaomi_pad6_api34_pm_list_packages_f.txt", func(b []byte) (any, error) { return ParsePackageList(b) }},
		{"package_ps/blog2017_ps_grep_chrome_toolbox_ps.txt", func(b []byte) (any, error) { return ParsePS(b) }},
		{"package_ps/stephen_blog_sony_top_snapshot.txt", func(b []byte) (any, error) { return ParseTop(b) }},
		{"display/flashlight_dumpsys_display_grep_120hz_pixel.txt", func(b []byte) (any, error) { return ParseDisplayRefresh(b) }},
		{"cpuinfo/droidmonitor_dumpsys_cpuinfo_android44.txt", func(b []byte) (any, error) { return ParseCPUInfo(b) }},
	}
	for _, p := range parsers {
		t.Run(p.file, func(t *testing.T) {
			raw := fixtures.Read(t, p.file)
			want, err := p.parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.parse(procUTF16CRLF(raw))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("UTF-16LE/CRLF copy parses differently:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}
