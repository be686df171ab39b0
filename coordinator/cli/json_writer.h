// A small streaming JSON writer for `iashim status --json`: enough for
// objects, arrays, strings, numbers, booleans and null, with commas and
// indentation handled here so callers cannot produce malformed output.
//
// Strings are escaped per RFC 8259 and always come out as valid UTF-8: text
// from the wire (job names, commands cut at 256 bytes by some shim) may hold
// broken sequences, and one bad byte must not make the whole document
// unreadable to a JSON parser, so each is replaced with U+FFFD.
#ifndef IASHIM_COORDINATOR_CLI_JSON_WRITER_H_
#define IASHIM_COORDINATOR_CLI_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace iashim::cli {

// `s` as a JSON string literal, quotes included.
std::string JsonQuote(std::string_view s);

// `value` in the shortest form that reads back as the same double; null for
// NaN and infinities, which JSON cannot express.
std::string JsonNumber(double value);

class JsonWriter {
 public:
  // `indent` > 0: one member or element a line, indented by that many spaces
  // a level; 0: all on one line.
  explicit JsonWriter(int indent = 0) : indent_(indent) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // Inside an object, before each value.
  JsonWriter& Key(std::string_view key);

  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Uint(uint64_t value);
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  const std::string& str() const { return out_; }

 private:
  // Writes the comma and line break that go before a value or key.
  void BeforeValue();
  void Open(char bracket);
  void Close(char bracket);
  void NewLine();

  struct Level {
    bool empty = true;
  };
  std::string out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
  int indent_;
};

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_JSON_WRITER_H_
