import Foundation
import SeekKit
import SeekImageCache
import SeekLoopback
import Testing

@Suite("image signatures")
struct ImageSignatureTests {
    @Test("JPEG, PNG, GIF and WebP are recognised by their leading bytes")
    func formats() {
        #expect(ImageSignature.format(of: SampleImages.jpeg()) == .jpeg)
        #expect(ImageSignature.format(of: SampleImages.png(width: 10, height: 10)) == .png)
        #expect(ImageSignature.format(of: SampleImages.gif(width: 10, height: 10)) == .gif)
        #expect(ImageSignature.format(of: SampleImages.webp(width: 10, height: 10)) == .webp)
    }

    @Test("an HTML page, an empty body and a few stray bytes are not images")
    func notImages() {
        #expect(!ImageSignature.isImage(SampleImages.html))
        #expect(!ImageSignature.isImage(Data()))
        #expect(!ImageSignature.isImage(Data([0xFF, 0xD8])))
        #expect(!ImageSignature.isImage(Data(#"{"error": "notfound"}"#.utf8)))
        #expect(!ImageSignature.isImage(Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)))
    }

    @Test("the pixel size is read from each format's header")
    func dimensions() throws {
        let jpeg = try #require(ImageSignature.dimensions(of: SampleImages.jpeg(width: 120, height: 180)))
        #expect(jpeg.width == 120 && jpeg.height == 180)
        let png = try #require(ImageSignature.dimensions(of: SampleImages.png(width: 640, height: 480)))
        #expect(png.width == 640 && png.height == 480)
        let gif = try #require(ImageSignature.dimensions(of: SampleImages.gif(width: 300, height: 2)))
        #expect(gif.width == 300 && gif.height == 2)
        let webp = try #require(ImageSignature.dimensions(of: SampleImages.webp(width: 550, height: 368)))
        #expect(webp.width == 550 && webp.height == 368)
    }

    @Test("a 1×1 image is a placeholder; a real cover or a header without a size is not")
    func placeholders() {
        #expect(ImageSignature.isPlaceholder(SampleImages.gif(width: 1, height: 1)))
        #expect(ImageSignature.isPlaceholder(SampleImages.png(width: 1, height: 1)))
        #expect(!ImageSignature.isPlaceholder(SampleImages.jpeg(width: 120, height: 180)))
        let headerOnly = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + Array(repeating: 7, count: 50))
        #expect(!ImageSignature.isPlaceholder(headerOnly))
    }

    @Test("each format names its file extension and type; SVG (Seek's drawn covers) is never recognised in bytes")
    func extensions() {
        #expect(ImageFormat.allCases.map(\.fileExtension) == ["jpg", "png", "gif", "webp", "svg"])
        #expect(ImageFormat.svg.mimeType == "image/svg+xml" && ImageFormat.jpeg.mimeType == "image/jpeg")
        #expect(ImageSignature.format(of: Data(#"<svg xmlns="http://www.w3.org/2000/svg"></svg>"#.utf8)) == nil)
    }
}
