// Debian 12's Boost 1.81 ships Boost.JSON without its compiled library, so the library is built
// here from its header-only source, once for the whole project (link target allocsim_json).
#include <boost/json/src.hpp>
