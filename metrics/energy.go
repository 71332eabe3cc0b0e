package metrics

import "strings"

// The energy figures: what the phone drew from its battery over a step,
// and the energy through each group of its power rails (README "Energy").
const (
	EnergyMAh             Name = "energy_mah"
	EnergyMJ              Name = "energy_mj"
	PowerMeanMW           Name = "power_mean_mw"
	EnergyRailCPUBigMJ    Name = "energy_rail_cpu_big_mj"
	EnergyRailCPUMidMJ    Name = "energy_rail_cpu_mid_mj"
	EnergyRailCPULittleMJ Name = "energy_rail_cpu_little_mj"
	EnergyRailGPUMJ       Name = "energy_rail_gpu_mj"
	EnergyRailDisplayMJ   Name = "energy_rail_display_mj"
	EnergyRailModemMJ     Name = "energy_rail_modem_mj"
)

// RailEnergyNames are the rail groups' metrics, in catalogue order.
var RailEnergyNames = []Name{EnergyRailCPUBigMJ, EnergyRailCPUMidMJ, EnergyRailCPULittleMJ, EnergyRailGPUMJ, EnergyRailDisplayMJ, EnergyRailModemMJ}

// RailGroup is the group a rail metric sums ("cpu_big" of
// energy_rail_cpu_big_mj), "" for any other metric.
func RailGroup(n Name) string {
	g, ok := strings.CutPrefix(string(n), "energy_rail_")
	if !ok {
		return ""
	}
	return strings.TrimSuffix(g, "_mj")
}
