package devicepool

import "fmt"

// Pick lists the devices a fan-out runs on: shard k of n (ShardMembers)
// of every member, or of one device of each model with perModel. An empty
// shard is an error.
func (p *Pool) Pick(perModel bool, k, n int) ([]*Member, error) {
	members := p.Members()
	if perModel {
		members = p.PerModel()
	}
	mine := ShardMembers(members, k, n)
	if len(mine) == 0 {
		return nil, fmt.Errorf("shard %d/%d of %d devices is empty", k, n, len(members))
	}
	return mine, nil
}
