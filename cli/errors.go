package cli

import "github.com/polyvol/polyvol/request"

// errorLine is err's message as Run prints it after "polyvol: "
// (request.Line).
var errorLine = request.Line
