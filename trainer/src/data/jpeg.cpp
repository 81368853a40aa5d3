#include "parity/trainer/data/jpeg.hpp"

// jpeglib.h needs FILE and size_t declared first.
#include <cstddef>
#include <cstdio>
// clang-format off
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include <csetjmp>
#include <fstream>
#include <vector>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

constexpr const char* kHint =
    "the file is damaged or not a JPEG; replace it, or set skip_corrupt: true to skip such files";

// libjpeg's error manager with a place to jump back to. libjpeg's default
// error_exit calls exit(); ours formats the message and longjmps to
// decompress(), whose frame holds no object with a destructor.
struct ErrorManager {
  jpeg_error_mgr base;  // first: libjpeg sees only this part
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void on_error_exit(j_common_ptr cinfo) {
  auto* manager = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, manager->message);
  std::longjmp(manager->jump, 1);
}

// Level -1 is a warning about corrupt data, levels >= 0 are trace messages.
// A premature end of the stream is an error for us: libjpeg would hand back
// an image whose missing part is gray.
void on_emit_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;
  if (cinfo->err->msg_code == JWRN_JPEG_EOF) on_error_exit(cinfo);
  ++cinfo->err->num_warnings;
}

struct Header {
  std::int64_t height = 0, width = 0;
  int components = 0;  // 3: RGB, 4: CMYK as stored (inverted)
};

// Every libjpeg call happens here, between setjmp and the return: after a
// longjmp only `cinfo` is touched again (by the caller's jpeg_destroy).
// Returns false after a libjpeg error, with the message in `manager`.
bool decompress(jpeg_decompress_struct* cinfo, ErrorManager* manager,
                std::span<const std::uint8_t> bytes, std::vector<std::uint8_t>* pixels,
                Header* header) {
  if (setjmp(manager->jump)) return false;
  jpeg_mem_src(cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(cinfo, TRUE);
  const bool cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
  // libjpeg-turbo converts grayscale and YCbCr to RGB itself, not CMYK.
  cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  jpeg_start_decompress(cinfo);
  header->height = cinfo->output_height;
  header->width = cinfo->output_width;
  header->components = cinfo->output_components;
  const auto row_bytes = static_cast<std::size_t>(header->width) * header->components;
  pixels->resize(row_bytes * static_cast<std::size_t>(header->height));
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = pixels->data() + row_bytes * cinfo->output_scanline;
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return true;
}

// PIL's MULDIV255: a * b / 255, rounded, without a division.
inline int muldiv255(int a, int b) {
  const int t = a * b + 128;
  return ((t >> 8) + t) >> 8;
}

// Inverted (Adobe) CMYK to RGB as PIL does it: "CMYK;I" unpacking, then
// cmyk2rgb, R = (255 - K) - C * (255 - K) / 255.
void cmyk_to_rgb(const std::vector<std::uint8_t>& cmyk, std::vector<std::uint8_t>& rgb) {
  const std::size_t count = cmyk.size() / 4;
  rgb.resize(count * 3);
  for (std::size_t i = 0; i < count; ++i) {
    const int nk = cmyk[4 * i + 3];  // 255 - K, since K = 255 - stored
    for (int c = 0; c < 3; ++c) {
      const int value = 255 - cmyk[4 * i + static_cast<std::size_t>(c)];
      rgb[3 * i + static_cast<std::size_t>(c)] =
          static_cast<std::uint8_t>(nk - muldiv255(value, nk));
    }
  }
}

}  // namespace

Sample decode_jpeg(std::span<const std::uint8_t> bytes, const std::string& where) {
  jpeg_decompress_struct cinfo{};
  ErrorManager manager{};
  cinfo.err = jpeg_std_error(&manager.base);
  manager.base.error_exit = on_error_exit;
  manager.base.emit_message = on_emit_message;
  jpeg_create_decompress(&cinfo);  // cannot fail once err is set up, except for memory
  struct Destroy {
    jpeg_decompress_struct* cinfo;
    ~Destroy() { jpeg_destroy_decompress(cinfo); }
  } destroy{&cinfo};

  std::vector<std::uint8_t> pixels;
  Header header;
  if (!decompress(&cinfo, &manager, bytes, &pixels, &header)) {
    std::string fault = manager.message;
    if (cinfo.err->msg_code == JWRN_JPEG_EOF) fault += " (the file is truncated)";
    throw Error("cannot decode JPEG: " + fault, where, kHint);
  }
  Sample sample;
  sample.height = header.height;
  sample.width = header.width;
  sample.channels = 3;
  if (header.components == 4) {
    cmyk_to_rgb(pixels, sample.pixels);
  } else if (header.components == 3) {
    sample.pixels = std::move(pixels);
  } else {
    throw Error("cannot decode JPEG: unexpected " + std::to_string(header.components) +
                    " output components",
                where, kHint);
  }
  return sample;
}

Sample read_jpeg(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file)
    throw Error("cannot open image file", path.string(), "check that it exists and is readable");
  const auto size = static_cast<std::size_t>(file.tellg());
  std::vector<std::uint8_t> bytes(size);
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    throw Error("cannot read image file", path.string());
  return decode_jpeg(bytes, path.string());
}

}  // namespace parity::trainer
