import Foundation
import SeekKit
import SeekCore

/// `--demo` for a declaration that carries recordings (the bundled ones): its `demo.routes` answer each
/// request with recorded bodies, its base URL points at the demo server and its keys are stand-ins.
enum DeclaredDemo {
    /// The demo `declaration` declares, reading recordings through `recording`; nil when it declares none
    /// or has no base URL setting to point at the demo server.
    static func demo(for declaration: JSONProviderDeclaration, recording: @escaping @Sendable (String) -> String?) -> ProviderDemo? {
        guard let demo = declaration.demo, let urlVariable = declaration.baseURLEnv else { return nil }
        var settings: [String: DemoSetting] = [urlVariable: .url(path: "")]
        for variable in declaration.requiredKeys { settings[variable] = .standInKey }
        var paths: [String] = []
        for route in demo.routes where !paths.contains(route.path) { paths.append(route.path) }
        let routes = paths.map { path in
            let candidates = demo.routes.filter { $0.path == path }
            return DemoRoute(path) { request in
                guard let route = candidates.first(where: { matches($0, request) }) else {
                    return .json(#"{"error": "demo: no recording answers this request"}"#, status: 404)
                }
                return answer(route, request, recording: recording)
            }
        }
        return ProviderDemo(settings: settings, routes: routes, sampleQueries: demo.sampleQueries, recording: recording)
    }

    /// Whether `request` carries every parameter `route.when` names, with that value (case and spaces aside).
    static func matches(_ route: JSONProviderDeclaration.Demo.Route, _ request: DemoRequest) -> Bool {
        route.when.allSatisfy { name, value in
            guard let sent = request.queryValue(name) else { return false }
            return fold(sent) == fold(value)
        }
    }

    private static func fold(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The route's recording; with `list`, the lists of all its recordings joined; with `record`, the one
    /// element of them whose value there is the request's last path segment (404 when none is).
    static func answer(
        _ route: JSONProviderDeclaration.Demo.Route, _ request: DemoRequest, recording: (String) -> String?
    ) -> DemoAnswer {
        let texts = route.files.map(recording)
        for (file, text) in zip(route.files, texts) where text == nil { return .recording(nil, named: file) }
        guard let list = route.list, let first = texts.first ?? nil, var root = ProviderDemo.object(first) else {
            let answer = DemoAnswer.recording(texts.first ?? nil, named: route.files.first ?? "?")
            return DemoAnswer(status: route.status, body: answer.body)
        }
        let joined = texts.compactMap { $0.flatMap(ProviderDemo.object).flatMap { elements(at: list.segments, in: $0) } }.flatMap { $0 }
        if let record = route.record {
            let wanted = request.lastSegment
            guard let found = joined.first(where: { value(at: record.segments, in: $0).map { "\($0)" } == wanted }) as? [String: Any] else {
                return .json(#"{"detail": "demo: no recording of this record"}"#, status: 404)
            }
            return .object(found, status: route.status)
        }
        root = setting(joined, at: list.segments, in: root)
        return .object(root, status: route.status)
    }

    private static func value(at segments: [String], in value: Any) -> Any? {
        var current: Any = value
        for segment in segments {
            guard let object = current as? [String: Any], let next = object[segment] else { return nil }
            current = next
        }
        return current
    }

    private static func elements(at segments: [String], in object: [String: Any]) -> [Any]? {
        value(at: segments, in: object) as? [Any]
    }

    private static func setting(_ list: [Any], at segments: [String], in object: [String: Any]) -> [String: Any] {
        guard let head = segments.first else { return object }
        var copy = object
        if segments.count == 1 {
            copy[head] = list
        } else if let inner = object[head] as? [String: Any] {
            copy[head] = setting(list, at: Array(segments.dropFirst()), in: inner)
        }
        return copy
    }
}
