import SeekCLI

await SeekMain.main()
