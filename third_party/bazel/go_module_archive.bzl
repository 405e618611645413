"""go_module_archive: a repository made from a Go module zip.

The only network these machines reach is the Go module proxy, so Bazel rule
sets that are also Go modules (rules_go) are fetched with the go command
rather than from GitHub. The module zip's h1: hash is checked against `sum`,
the same hash go.sum records, before it is unpacked.
"""

def _go_module_archive_impl(ctx):
    go = ctx.path(ctx.attr.go_root + "/bin/go")
    module = ctx.attr.module + "@" + ctx.attr.version
    result = ctx.execute(
        [go, "mod", "download", "-json", module],
        environment = {"GOTOOLCHAIN": "local"},
        timeout = 600,
    )
    if result.return_code != 0:
        fail("go mod download %s failed:\n%s%s" % (module, result.stdout, result.stderr))
    info = json.decode(result.stdout)
    if info["Sum"] != ctx.attr.sum:
        fail("%s: module sum %s, want %s" % (module, info["Sum"], ctx.attr.sum))

    ctx.extract(info["Zip"], stripPrefix = module)
    for patch in ctx.attr.patches:
        ctx.patch(patch, strip = 1)

go_module_archive = repository_rule(
    implementation = _go_module_archive_impl,
    attrs = {
        "module": attr.string(mandatory = True, doc = "Module path, e.g. github.com/bazelbuild/rules_go."),
        "version": attr.string(mandatory = True, doc = "Module version, e.g. v0.34.0."),
        "sum": attr.string(mandatory = True, doc = "Expected h1: hash of the module zip, as in go.sum."),
        "go_root": attr.string(default = "/usr/local/go", doc = "GOROOT of the go command that downloads."),
        "patches": attr.label_list(allow_files = True, doc = "Patches applied with strip 1."),
    },
    environ = ["GOPROXY", "GOMODCACHE", "GOPATH"],
)
