import Foundation
import SeekCore
import SeekIdentity
import Testing

/// A provider whose detail answers with whatever record it was given, whatever id was asked.
private struct AnsweringProvider: SearchProvider {
    let descriptor = ProviderDescriptor(id: "shop", name: "Shop", kinds: [.book], capabilities: [.search, .detail], paging: .offset)
    let answer: ItemDetail
    /// Ids that name the same record as this provider means them (upper and lower case alike).
    var caseInsensitive = false

    var endpoint: String { "stub://shop" }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage { SearchPage(items: []) }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail { answer }

    func isRecord(_ item: Item, of requested: ItemID) -> Bool {
        caseInsensitive ? item.id.description.lowercased() == requested.description.lowercased() : item.id == requested
    }
}

private func record(_ value: String, redirect: ItemRedirect? = nil) -> ItemDetail {
    ItemDetail(item: book("shop", value, "Book \(value)"), redirect: redirect)
}

private func shop(_ value: String) -> ItemID { ItemID(provider: "shop", value: value) }

@Suite("Detail answers the id asked for")
struct DetailIdentityTests {
    @Test("a record of another id is an undecodable-response error naming both ids")
    func anotherRecordIsRefused() async throws {
        let engine = SearchEngine(registry: try ProviderRegistry([AnsweringProvider(answer: record("B2"))]), merger: ResultMerger())
        let error = await #expect(throws: SeekError.self) { try await engine.detail(shop("A1")) }
        #expect(error?.kind == .undecodable)
        #expect(error?.provider == "shop")
        #expect(error?.detail.contains("shop:A1") == true)
        #expect(error?.detail.contains("shop:B2") == true)
    }

    @Test("the record of the id asked for is returned")
    func sameRecordPasses() async throws {
        let engine = SearchEngine(registry: try ProviderRegistry([AnsweringProvider(answer: record("A1"))]), merger: ResultMerger())
        #expect(try await engine.detail(shop("A1")).item.id == shop("A1"))
    }

    @Test("a provider that normalises its ids decides which are the same")
    func providerNormalisation() async throws {
        let provider = AnsweringProvider(answer: record("A1"), caseInsensitive: true)
        let engine = SearchEngine(registry: try ProviderRegistry([provider]), merger: ResultMerger())
        #expect(try await engine.detail(shop("a1")).item.id == shop("A1"))
    }

    @Test("a redirect the provider reports from the id asked for is accepted when the record is its target")
    func reportedRedirectPasses() async throws {
        let answer = record("B2", redirect: ItemRedirect(from: shop("A1"), to: shop("B2")))
        let engine = SearchEngine(registry: try ProviderRegistry([AnsweringProvider(answer: answer)]), merger: ResultMerger())
        #expect(try await engine.detail(shop("A1")).item.id == shop("B2"))
    }

    @Test("a redirect whose target is not the record answered is refused, naming the target")
    func redirectToAnotherRecordIsRefused() async throws {
        let answer = record("C3", redirect: ItemRedirect(from: shop("A1"), to: shop("B2")))
        let engine = SearchEngine(registry: try ProviderRegistry([AnsweringProvider(answer: answer)]), merger: ResultMerger())
        let error = await #expect(throws: SeekError.self) { try await engine.detail(shop("A1")) }
        #expect(error?.detail.contains("redirected to shop:B2") == true)
        #expect(error?.detail.contains("shop:C3") == true)
    }

    @Test("a redirect reported from another id does not excuse a different record")
    func redirectFromAnotherIDIsIgnored() async throws {
        let answer = record("B2", redirect: ItemRedirect(from: shop("Z9"), to: shop("B2")))
        let engine = SearchEngine(registry: try ProviderRegistry([AnsweringProvider(answer: answer)]), merger: ResultMerger())
        await #expect(throws: SeekError.self) { try await engine.detail(shop("A1")) }
    }

    @Test("detailAnswer reports the failure with its elapsed time instead of throwing")
    func detailAnswerCarriesFailure() async throws {
        let engine = SearchEngine(registry: try ProviderRegistry([AnsweringProvider(answer: record("B2"))]), merger: ResultMerger())
        let answer = try await engine.detailAnswer(shop("A1"))
        let outcome = answer.outcome { _ in 1 }
        #expect(outcome.status == .error)
        #expect(outcome.count == 0)
        #expect(outcome.error?.kind == .undecodable)
    }
}
