// Package dumpsys reads what the device's services print: dumpsys meminfo,
// battery (and the battery's sysfs uevent), thermalservice and the thermal
// zones, display, package and `pm list packages`, ps and top, cpuinfo,
// netstats, and `am start -W`. ValidatePackage is the one check of a
// package name that goes into a device command.
//
//	m, err := dumpsys.ParseMeminfo(out)
//	fmt.Println(m.PSSKB)
package dumpsys
