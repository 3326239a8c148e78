// Turns a request seed written as protobuf text into a fuzz input (FuzzCall.h):
//   encode_seed SERVICE IN.txtpb OUT
// IN names its method and caller in comment lines, then holds the request message:
//   # method: ExecuteAction
//   # caller: alice
//   action { type: ACTION_TYPE_DRAIN_NODE node_name: "r01-n03" ... }
#include "FuzzCall.h"

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

using namespace watchfloor::fuzz;

namespace {

std::string header(const std::string& text, const std::string& key) {
    const std::string tag = "# " + key + ":";
    const auto at = text.find(tag);
    if (at == std::string::npos) return {};
    const auto start = text.find_first_not_of(' ', at + tag.size());
    return text.substr(start, text.find('\n', start) - start);
}

int fail(const std::string& message) {
    std::cerr << "encode_seed: " << message << "\n";
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) return fail("usage: encode_seed SERVICE IN.txtpb OUT");
    std::ifstream in(argv[2]);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return fail(std::string("cannot read ") + argv[2]);

    const auto& service = serviceNamed(argv[1]);
    const auto* method = service.FindMethodByName(header(text.str(), "method"));
    if (!method) return fail(std::string(argv[2]) + ": '# method: NAME' names no method of " + argv[1]);
    Caller caller = Caller::Anonymous;
    if (const auto name = header(text.str(), "caller"); !name.empty() && !callerFromName(name, &caller))
        return fail(std::string(argv[2]) + ": unknown caller '" + name + "'");

    const auto* prototype = google::protobuf::MessageFactory::generated_factory()->GetPrototype(method->input_type());
    std::unique_ptr<google::protobuf::Message> request(prototype->New());
    if (!google::protobuf::TextFormat::ParseFromString(text.str(), request.get()))
        return fail(std::string(argv[2]) + ": not a " + method->input_type()->full_name());

    std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
    out.put(static_cast<char>(selectorByte(*method, caller)));
    out << request->SerializeAsString();
    return out ? 0 : fail(std::string("cannot write ") + argv[3]);
}
