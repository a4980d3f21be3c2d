
`
infer-aservingL
serverB
nvidia.com/mig-1g.10gb(MIG-5c3a8f1e-2d4b-5e6f-8a9b-0c1d2e3f4a5b
9
infer-bserving%
server
amd.com/gpu0000:c1:00.0
5
coredns-5d78c9869d-abcdekube-system
coredns