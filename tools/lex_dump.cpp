// Prints the token stream of each file given: "Kind begin end" per token (byte offsets),
// then "!error CODE begin end message" when lexing failed. Used by tools/lex_oracle.py.
//   lex_dump [--3.11|--3.12] FILE...
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "lex/lexer.h"

int main(int argc, char** argv) {
  graphmend::LexOptions options;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--3.11" || arg == "--3.12") {
      options.version.minor = arg == "--3.11" ? 11 : 12;
      continue;
    }
    std::ifstream in(arg, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    graphmend::SourceText source(buffer.str(), arg);
    graphmend::LexResult result = graphmend::lex(source, options);
    out += "== " + arg + "\n";
    for (const graphmend::Token& t : result.tokens) {
      out += graphmend::token_kind_name(t.kind);
      out += ' ' + std::to_string(t.begin) + ' ' + std::to_string(t.end) + '\n';
    }
    if (result.error) {
      const auto& e = *result.error;
      out += "!error " + e.code + ' ' + std::to_string(e.span.begin) + ' ' +
             std::to_string(e.span.end) + ' ' + e.message + '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
  }
  return 0;
}
