import ITBookstoreProvider
import SeekHosts

// `seek` with IT Bookstore added: every command, flag and output of `seek`, plus `--providers itbook`,
// and `serve` and `mcp` serving it too (the hosts are linked in).
// The built-in providers come from the composition root; this executable only adds its own.
await SeekHostsMain.main(extraProviders: [ITBookstoreProvider.factory])
