// dumbbell.cc -- ns-3 run of the cclab benchmark dumbbell (benchmarks/suite.py), the same scenario as
// benchmarks/ns2/dumbbell.tcl: N bulk TCP flows from src_i through r1 -> r2 (the DropTail bottleneck) to
// dst_i, access links 10x the bottleneck rate with access_ms * (i + 1) / N one way on each side.
//
// Built by benchmarks/suite.py with Debian's ns-3 (apt-get install ns3 libns3-dev):
//     g++ -O2 -o target/ns3-dumbbell benchmarks/ns3/dumbbell.cc $(pkg-config --cflags --libs ns3-core \
//         ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control)
//     target/ns3-dumbbell --cc=TcpNewReno --rateMbps=200 --delayMs=50 --buffer=167 --flows=1 --duration=200 \
//         [--progress=1] [--trace=FILE] [--ns3::TcpL4Protocol::RecoveryType=ns3::TcpClassicRecovery ...]
// Prints one line per flow, key=value, like dumbbell.tcl:
//     flow=0 cc=TcpNewReno goodput_bps=... packets_sent_total=...
// `--trace=FILE` writes the senders' trace sources (TcpSocketBase) to FILE, one event a line,
// "<time ns> <flow> <what> <value>", for benchmarks/prr_crosscheck.py:
//     tx <seq> <payload bytes>   a data segment handed to IP (retransmissions included; "Tx")
//     ack <ack number>           an ACK received ("Rx")
//     cwnd|ssthresh|inflight <bytes>, state <TcpCongState_t>, rto <ns>   on every change
// Attributes not set below can be given on the command line (`--ns3::TcpSocketBase::MinRto=+200ms`);
// those set below (initial window, segment size, ...) cannot, since Config::SetDefault follows Parse.
//
// Its best honest configuration, as for ns-2 (docs/benchmarks.md):
// - no queue discipline (traffic control uninstalled): the bottleneck queue is the point-to-point
//   device's DropTail queue of `buffer` packets; access queues hold 10^6 packets so that only the
//   bottleneck drops;
// - SACK on, no delayed ACKs (DelAckCount 1), no timestamps (so 1460 + 40 = 1500 IP bytes; the PPP header
//   adds 2 on the wire), initial window 2, send and receive buffers of 1 GiB (window scaling) so that the
//   window never limits below 7 * 10^5 packets;
// - no tracing but one counter per data packet on each source's access device (packets sent).
// Debian's libns3 is not ns-3's "optimized" build profile: NS_LOG works (NS_LOG=TcpSocketBase=level_all
// prints), so logging and asserts are compiled in, and an optimized ns-3 would be faster than measured here.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <fstream>
#include <vector>

using namespace ns3;

static std::vector<uint64_t> g_sent;
static std::ofstream g_trace;

// One trace line: simulated time in ns, the flow, what changed and its new value.
static void
TraceLine(uint32_t flow, const char* what, uint64_t value)
{
    g_trace << Simulator::Now().GetNanoSeconds() << ' ' << flow << ' ' << what << ' ' << value << '\n';
}

static void
TraceTx(uint32_t flow, Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (packet->GetSize() > 0)
    {
        g_trace << Simulator::Now().GetNanoSeconds() << ' ' << flow << " tx "
                << header.GetSequenceNumber().GetValue() << ' ' << packet->GetSize() << '\n';
    }
}

static void
TraceRx(uint32_t flow, Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (header.GetFlags() & TcpHeader::ACK)
    {
        TraceLine(flow, "ack", header.GetAckNumber().GetValue());
    }
}

static void
TraceWindow(uint32_t flow, const char* what, uint32_t, uint32_t value)
{
    TraceLine(flow, what, value);
}

static void
TraceRto(uint32_t flow, Time, Time rto)
{
    TraceLine(flow, "rto", rto.GetNanoSeconds());
}

static void
TraceState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t state)
{
    TraceLine(flow, "state", state);
}

// The application makes its socket when it starts (t = 0), so the trace sources are hooked just after.
static void
HookTraces(uint32_t flow, Ptr<BulkSendApplication> app)
{
    Ptr<Socket> socket = app->GetSocket();
    socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TraceTx, flow));
    socket->TraceConnectWithoutContext("Rx", MakeBoundCallback(&TraceRx, flow));
    socket->TraceConnectWithoutContext("CongestionWindow",
                                       MakeBoundCallback(&TraceWindow, flow, "cwnd"));
    socket->TraceConnectWithoutContext("SlowStartThreshold",
                                       MakeBoundCallback(&TraceWindow, flow, "ssthresh"));
    socket->TraceConnectWithoutContext("BytesInFlight",
                                       MakeBoundCallback(&TraceWindow, flow, "inflight"));
    socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&TraceState, flow));
    socket->TraceConnectWithoutContext("RTO", MakeBoundCallback(&TraceRto, flow));
}

static void
CountSent(uint32_t flow, Ptr<const Packet>)
{
    g_sent[flow]++;
}

// Every `interval` of simulated time: the data packets sent so far, flushed, so that a run stopped at a
// wall-time cap still tells how far it got (benchmarks/suite.py reads it).
static void
Progress(Time interval)
{
    uint64_t sent = 0;
    for (uint64_t n : g_sent)
    {
        sent += n;
    }
    std::printf("progress t=%g packets_sent_total=%llu\n",
                Simulator::Now().GetSeconds(),
                static_cast<unsigned long long>(sent));
    std::fflush(stdout);
    Simulator::Schedule(interval, &Progress, interval);
}

int
main(int argc, char* argv[])
{
    std::string cc = "TcpNewReno";
    double rateMbps = 200;
    double delayMs = 50;
    double accessMs = 2.5;
    uint32_t buffer = 167;
    uint32_t flows = 1;
    uint32_t payload = 1460;
    double duration = 200;
    double progress = 0;
    std::string trace;
    CommandLine cmd;
    cmd.AddValue("cc", "ns-3 TCP congestion control type (TcpNewReno, TcpCubic, TcpBbr, ...)", cc);
    cmd.AddValue("rateMbps", "bottleneck rate, Mbit/s", rateMbps);
    cmd.AddValue("delayMs", "bottleneck one-way delay, ms", delayMs);
    cmd.AddValue("accessMs", "largest access one-way delay, ms (each side)", accessMs);
    cmd.AddValue("buffer", "bottleneck DropTail queue, packets", buffer);
    cmd.AddValue("flows", "number of bulk TCP flows, all starting at t = 0", flows);
    cmd.AddValue("payload", "TCP segment payload, bytes", payload);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("progress", "print the packets sent every this many simulated seconds (0: never)", progress);
    cmd.AddValue("trace", "write the senders' segments, ACKs, cwnd, ssthresh, pipe, RTO and state here", trace);
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(TypeId::LookupByName("ns3::" + cc)));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(payload));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1u << 30));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1u << 30));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));

    NodeContainer routers;
    routers.Create(2);
    NodeContainer sources;
    sources.Create(flows);
    NodeContainer sinks;
    sinks.Create(flows);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rateMbps * 1e6)));
    bottleneck.SetChannelAttribute("Delay", TimeValue(MicroSeconds(delayMs * 1e3)));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>",
                        "MaxSize",
                        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, buffer)));
    NetDeviceContainer core = bottleneck.Install(routers.Get(0), routers.Get(1));

    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.252");
    address.Assign(core);
    address.NewNetwork();
    TrafficControlHelper trafficControl;
    trafficControl.Uninstall(core);

    g_sent.assign(flows, 0);
    std::vector<Ptr<PacketSink>> receivers;
    for (uint32_t i = 0; i < flows; i++)
    {
        PointToPointHelper access;
        access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(10 * rateMbps * 1e6)));
        access.SetChannelAttribute("Delay",
                                   TimeValue(NanoSeconds(accessMs * 1e6 * (i + 1) / flows)));
        access.SetQueue("ns3::DropTailQueue<Packet>",
                        "MaxSize",
                        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 1000000)));
        NetDeviceContainer left = access.Install(sources.Get(i), routers.Get(0));
        NetDeviceContainer right = access.Install(routers.Get(1), sinks.Get(i));
        address.Assign(left);
        address.NewNetwork();
        Ipv4InterfaceContainer sinkSide = address.Assign(right);
        address.NewNetwork();
        trafficControl.Uninstall(left);
        trafficControl.Uninstall(right);
        left.Get(0)->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&CountSent, i));

        uint16_t port = 5000;
        BulkSendHelper source("ns3::TcpSocketFactory",
                              InetSocketAddress(sinkSide.GetAddress(1), port));
        source.SetAttribute("MaxBytes", UintegerValue(0));
        source.SetAttribute("SendSize", UintegerValue(payload * 64));
        ApplicationContainer sender = source.Install(sources.Get(i));
        sender.Start(Seconds(0));
        if (!trace.empty())
        {
            Simulator::Schedule(NanoSeconds(1),
                                &HookTraces,
                                i,
                                DynamicCast<BulkSendApplication>(sender.Get(0)));
        }
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer app = sink.Install(sinks.Get(i));
        app.Start(Seconds(0));
        receivers.push_back(DynamicCast<PacketSink>(app.Get(0)));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    if (!trace.empty())
    {
        g_trace.open(trace);
    }

    if (progress > 0)
    {
        Simulator::Schedule(Seconds(progress), &Progress, Seconds(progress));
    }
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    for (uint32_t i = 0; i < flows; i++)
    {
        double goodput = receivers[i]->GetTotalRx() * 8.0 / duration;
        std::printf("flow=%u cc=%s goodput_bps=%.1f packets_sent_total=%llu\n",
                    i,
                    cc.c_str(),
                    goodput,
                    static_cast<unsigned long long>(g_sent[i]));
    }
    Simulator::Destroy();
    return 0;
}
