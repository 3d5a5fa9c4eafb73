import ITBookstoreProvider
import SeekCLI

// `seek` with IT Bookstore added: every command, flag and output of `seek`, plus `--providers itbook`.
// The built-in providers come from SeekCLI's composition root; this executable only adds its own.
await SeekMain.main(extraProviders: [ITBookstoreProvider.factory])
