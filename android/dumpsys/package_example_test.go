package dumpsys_test

import (
	"fmt"

	"github.com/perfgate/perfgate/android/dumpsys"
)

// A package name a user gives is checked before it goes into a device
// command.
func ExampleValidatePackage() {
	fmt.Println(dumpsys.ValidatePackage("com.example.app"))
	fmt.Println(dumpsys.ValidatePackage("com.example.app;reboot"))
	// Output:
	// <nil>
	// invalid package name "com.example.app;reboot": character ';' not allowed
}
