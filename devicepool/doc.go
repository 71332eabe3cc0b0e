// Package devicepool shares the phones of one or more adb servers among the
// tests of a suite: each test leases a free device for its duration, so
// t.Parallel tests measure on different phones at once.
//
//	var lab *devicepool.Pool
//
//	func TestMain(m *testing.M) {
//		p, err := devicepool.New(context.Background(), devicepool.FromEnv())
//		if err != nil { fmt.Fprintln(os.Stderr, err); os.Exit(1) }
//		lab = p
//		os.Exit(m.Run())
//	}
//
//	func TestScroll(t *testing.T) {
//		t.Parallel()
//		d := lab.Lease(t) // released when the test ends
//		s := perftest.Start(t, d.Device, perftest.App("com.example.feed"))
//		…
//	}
//
// A pool uses the adb servers a lab already runs, as they are: servers on
// other hosts (`adb -H host -P port`), and the remote phones of a device
// farm that a server joined with `adb connect`. Config lists the servers and
// the filters (model, API level, serial pattern); FromEnv and ReadConfig
// fill it from $PERFGATE_ADB_SERVERS and friends or from a JSON file.
//
// A phone reached two ways, through two servers or over USB and TCP at
// once, is one member, leased once: the pool tells phones apart by their
// boot id and ro.serialno (Identity), and Notes says which serials it took
// for one phone.
//
// Nothing is global: a pool is a value a suite creates. A lease waits,
// bounded by Config.Wait, while every device is busy. A device that
// disappears during a test fails that test with an error naming it and
// leaves the pool; the other tests go on, and the session's partial Result
// is written as for any device that goes away (see package perftest).
//
// Each runs a test on every device of the pool, or on one of each model;
// Shard splits a suite between CI jobs ($PERFGATE_SHARD=k/n), whose Results
// `perfgate report` merges into one report.
package devicepool
