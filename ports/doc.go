// Package ports holds the interfaces the app layer needs from the world,
// named by role. Signatures use only domain and standard-library types;
// adapters translate library errors into the sentinels of errors.go.
//
//go:generate go tool moq -rm -out ../mocks/ports.go -pkg mocks . ConversationStore DraftStore WorkspaceRegistry Locker Clock ConfigLoader ConfigEditor Provider Printer Prompter ToolServer ToolPreviewer ToolClassifier ProviderFactory ToolSource IDGenerator Interrupts InterruptScope Timers PluginCatalog PluginSpawner PluginTransport MCPPool MCPSession BlockCheckpoints Attacher WorkspaceTrust MessageHistory FileSnapshots GitCommitter ModelLister PluginCodec EventHeaderScanner TransientEventScanner ExpiryRecord
package ports
